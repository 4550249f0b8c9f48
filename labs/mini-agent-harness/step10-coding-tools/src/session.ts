/**
 * 会话文件：一行一个 JSON 条目（JSONL），追加写入。
 *
 *   {"type":"message","id":"e1","parentId":null,"message":{…}}
 *   {"type":"message","id":"e2","parentId":"e1","message":{…}}
 *
 * 为什么是「追加 + parentId」而不是每次重写整个数组：
 *   - 每条消息一产生就落盘，进程崩溃最多丢掉正在写的那一行；
 *   - parentId 把条目串成一条链，恢复时从最后一条往回走，就能还原当时的上下文
 *     （Pi 的会话文件也是这个结构，它还用 parentId 表示分支）。
 *
 * 会话文件是外来的输入，打开它绝不能把它弄坏。防线都在 guards/ 里，这里每处只调用一行：按字节读行、
 * 守住上限（lines），每行的形状与 parentId 链（entryChecks），写到一半的最后一行（tail），一次只许一个进程写（lock），
 * 写之前核对、写不进去时说一句（write）。
 */

import fs from "node:fs";
import path from "node:path";

import * as entryChecks from "./guards/session-entries.js";
import * as lines from "./guards/session-lines.js";
import * as lock from "./guards/session-lock.js";
import * as tail from "./guards/session-tail.js";
import * as write from "./guards/session-write.js";
import type { HarnessEvent, Message } from "./types.js";

export interface SessionEntry {
  type: "message";
  id: string;
  parentId: string | null;
  message: Message;
}

/** 文件里的任意一行。将来的版本可能写入别的条目类型（例如书签）：不转成消息，但仍留在 parentId 链上。 */
export interface RawEntry {
  type: string;
  id: string;
  parentId: string | null;
  message?: Message;
}

/** 打开会话文件时发现、但不影响恢复的问题（例如被截断的最后一行）。 */
export type SessionWarnings = string[];

/** loadSession 的结果：只读出来，不改文件。 */
export interface LoadedSession {
  entries: RawEntry[]; // 文件里的全部条目，按行的顺序
  messages: Message[]; // 沿 parentId 还原出的消息链，按时间顺序
  repair?: { truncateAt: number } | { appendNewline: true }; // 末尾要修补的地方：从哪个字节起截掉半行，或补上换行
}

export class Session {
  private locked = false; // 新会话在第一次写入时才加锁
  /** 写入失败过：之后的消息都不再写，文件停在最后一条完整的消息上，parentId 链不会断。 */
  private savingStopped = false;
  warn: (line: string) => void = (line) => console.error(line); // 写入出了状况时说的话交给谁（测试里收集起来）

  private constructor(
    readonly file: string, // 绝对路径
    private readonly restored: Message[], // 恢复出的消息，按时间顺序
    private lastId: string | null,
    private nextNumber: bigint,
    private readonly limits: lines.SessionLimits, // 每行与整个文件的字节上限：读和写守同一组
  ) {}

  /** 新建一个会话。文件等到第一条消息时才创建：只打开、没说话就退出，不会留下空文件让 --continue 误选。 */
  static create(file: string, limits = lines.SESSION_LIMITS): Session {
    write.checkWritable(path.dirname(file)); // 写不进去的目录现在就说，不等到第一次写入
    fs.rmSync(file, { force: true });
    return new Session(file, [], null, 1n, limits);
  }

  /** 打开已有的会话文件：先加锁，再读出全部条目，沿 parentId 还原消息链，最后修补末尾。 */
  static open(file: string, warnings: SessionWarnings = [], limits = lines.SESSION_LIMITS): Session {
    write.checkWritable(path.dirname(file), file);
    lock.lockSession(file, path.basename(file));
    // 修补只发生在确认它是会话文件之后：截掉写了一半的行（先另存一份），或补上结尾的换行
    const { entries, messages } = lock.unlockOnError(file, () => {
      const loaded = loadSession(file, warnings, limits);
      tail.repairTail(file, loaded.repair, warnings);
      return loaded;
    });
    const session = new Session(file, messages, entries.at(-1)?.id ?? null, entryChecks.nextNumberAfter(entries), limits);
    session.locked = true;
    return session;
  }

  /** 目录里最近写过的会话文件；没有则返回 undefined。 */
  static latestFile(dir: string): string | undefined {
    if (!fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory()) return undefined; // 不存在，或那里是个文件
    const files = fs
      .readdirSync(dir)
      .filter((name) => name.endsWith(".jsonl"))
      .map((name) => ({ file: path.join(dir, name), mtime: fs.statSync(path.join(dir, name)).mtimeMs }))
      .sort((a, b) => a.mtime - b.mtime || a.file.localeCompare(b.file));
    return files.at(-1)?.file;
  }

  /** 恢复出的历史消息（新会话为空）。 */
  messages(): Message[] {
    return [...this.restored];
  }

  /** 追加一条消息：写成一行 JSON，同步追加到文件末尾。写不进去不抛出：说一句哪条起没有保存，之后不再写，对话照常进行。 */
  append(message: Message): void {
    if (this.savingStopped) return;
    const entry: SessionEntry = { type: "message", id: `e${this.nextNumber}`, parentId: this.lastId, message };
    try {
      // 防线包在两个真正干活的调用外面：写出的一行读回来要就是这条消息，太长的截短再存；写到一半失败就截掉半行
      const line = write.lineWithinLimit(entry, JSON.stringify, this.limits.lineBytes, this.warn);
      if (!this.locked) this.lockOnFirstWrite();
      write.appendWholeLine(this.file, line, this.limits.fileBytes, () => fs.appendFileSync(this.file, line));
    } catch (error) {
      this.savingStopped = true;
      this.warn(write.savingStoppedNotice(this.file, message, error));
      return;
    }
    this.lastId = entry.id;
    this.nextNumber += 1n;
  }

  /**
   * 事件流的中间件：每条进入上下文的消息，经过这里时顺手落盘，再原样交给下游。
   * 被取消的半截消息也是一条 message 事件，所以它同样会被保存。
   */
  async *record(events: AsyncIterable<HarnessEvent>): AsyncGenerator<HarnessEvent> {
    for await (const event of events) {
      if (event.type === "message") this.append(event.message);
      yield event;
    }
  }

  /** 放开这个文件的锁：之后别的进程可以打开它；本对象再写入时会重新加锁。进程退出时会自动放开。 */
  close(): void {
    if (this.locked) lock.unlockSession(this.file);
    this.locked = false;
  }

  /** 新会话的第一次写入：建目录、加锁。 */
  private lockOnFirstWrite(): void {
    fs.mkdirSync(path.dirname(this.file), { recursive: true });
    lock.lockSession(this.file, path.basename(this.file));
    this.locked = true;
  }
}

/**
 * 只读地加载一个会话文件：解析、检查每一行、沿 parentId 还原消息链。不加锁，也不改文件，
 * 查看器之类的程序可以放心调用。坏文件抛出一句说明（文件与行号）。
 */
export function loadSession(file: string, warnings: SessionWarnings = [], limits = lines.SESSION_LIMITS): LoadedSession {
  const { entries, repair } = readEntries(file, warnings, limits);
  const chain = walkBack(entries, path.basename(file)).filter((entry) => entry.type === "message");
  const messages = chain.map((entry) => entry.message as Message);
  return repair ? { entries, messages, repair } : { entries, messages };
}

/** 逐行解析。readLines 按字节切行，行的起点是字节位置：截断半行时要的正是它。 */
function readEntries(file: string, warnings: SessionWarnings, limits: lines.SessionLimits): Pick<LoadedSession, "entries" | "repair"> {
  const name = path.basename(file);
  const entries: RawEntry[] = [];
  const lineOfId = new Map<string, number>();
  let endsWithNewline = true;
  for (const { number: lineNumber, start, text, ended } of lines.readLines(file, limits)) {
    endsWithNewline = ended;
    const line = lineNumber === 1 && text.startsWith("\uFEFF") ? text.slice(1) : text; // 有些编辑器会加 BOM
    if (line.trim() === "") continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch (error) {
      // 只有本程序写到一半的最后一行可以跳过（由 Session.open 从它的起点截掉）；别的坏行原样拒绝
      const truncateAt = tail.tornTailStart(name, { lineNumber, start, line, ended }, entries.length, error);
      warnings.push(`会话文件 ${name} 第 ${lineNumber} 行不完整（上次可能写到一半时退出），已跳过`);
      return { entries, repair: { truncateAt } };
    }
    entryChecks.rejectMalformedEntry(name, lineNumber, parsed, lineOfId);
    const entry = parsed as RawEntry;
    if (entry.type !== "message") warnings.push(`会话文件 ${name} 第 ${lineNumber} 行：不认识的条目类型 ${JSON.stringify(entry.type)}，已跳过`);
    entries.push(entry);
  }
  // 最后一行完整、只是少了换行（比如被编辑器去掉了）：补上，否则下一次追加会接在同一行。
  return entries.length > 0 && !endsWithNewline ? { entries, repair: { appendNewline: true } } : { entries };
}

/** 从最后一条往回沿 parentId 走到根，再反转成时间顺序。 */
function walkBack(entries: RawEntry[], name: string): RawEntry[] {
  const byId = new Map(entries.map((entry) => [entry.id, entry]));
  const chain: RawEntry[] = [];
  let current = entries.at(-1);
  while (current) {
    chain.push(current);
    entryChecks.rejectCycle(chain.length, entries.length, name);
    if (current.parentId === null) break;
    current = byId.get(current.parentId) ?? entryChecks.missingParent(name, current);
  }
  return chain.reverse();
}
