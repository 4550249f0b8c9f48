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
 * 会话文件是外来的输入，打开它绝不能把它弄坏：
 *   - 截断半行时用字节偏移，不用解码后的字符数（两者在非法 UTF-8 面前并不相等）；
 *   - 第一行就不像会话条目的文件（比如一份笔记）原样拒绝，一个字节都不改；
 *   - 开头的 UTF-8 BOM（有些编辑器会加）跳过；
 *   - 每一行都检查形状（session-entry.ts），错了指出文件与行号；
 *   - 同一时刻只有一个进程写（session-lock.ts）；
 *   - 按字节逐行读、每行有上限，不是普通文件（FIFO、设备）不读（session-lines.ts）；
 *   - 写不进去（磁盘满、只读）时说一句、停止保存，对话照常；写之前核对这一行（session-write.ts）。
 */

import fs from "node:fs";
import path from "node:path";

import { entryProblem } from "./session-entry.js";
import { MAX_LINE_BYTES, readLines } from "./session-lines.js";
import { lockSession, unlockSession } from "./session-lock.js";
import { checkWritable, entryLine, ioReason } from "./session-write.js";
import type { HarnessEvent, Message } from "./types.js";

export interface SessionEntry {
  type: "message";
  id: string;
  parentId: string | null;
  message: Message;
}

/**
 * 文件里的任意一行。除了消息，将来的版本（或别的程序）可能写入别的条目类型，
 * 例如书签；不认识的条目不转成消息，但仍然留在 parentId 链上、占着它的编号。
 */
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
  /** 文件里的全部条目，按行的顺序。 */
  entries: RawEntry[];
  /** 沿 parentId 还原出的消息链，按时间顺序。 */
  messages: Message[];
  /** 文件末尾要修补的地方：半行从哪个字节起截掉，或者只是少了结尾的换行。 */
  repair?: { truncateAt: number } | { appendNewline: true };
}

export class Session {
  /** 这个对象是否已经为文件加了锁。新会话在第一次写入时才加。 */
  private locked = false;
  /** 写入失败过：之后的消息都不再写，文件停在最后一条完整的消息上，parentId 链不会断。 */
  private unsaved = false;
  /** 写入失败时说的那句话交给谁（测试里换成收集起来）。 */
  warn: (line: string) => void = (line) => console.error(line);

  private constructor(
    /** 会话文件的绝对路径。 */
    readonly file: string,
    /** 恢复出的消息，按时间顺序。 */
    private readonly restored: Message[],
    private lastId: string | null,
    private nextNumber: bigint,
    private readonly maxLineBytes: number,
  ) {}

  /**
   * 新建一个会话。文件等到第一条消息时才创建：只打开、没说话就退出，
   * 不会留下一个空文件让下次 --continue 误选。同名的旧文件会被替换。
   */
  static create(file: string, maxLineBytes = MAX_LINE_BYTES): Session {
    checkWritable(path.dirname(file)); // 写不进去的目录现在就说，不等到第一次写入
    fs.rmSync(file, { force: true });
    return new Session(file, [], null, 1n, maxLineBytes);
  }

  /** 打开已有的会话文件：先加锁，再读出全部条目，沿 parentId 还原消息链，最后修补末尾。 */
  static open(file: string, warnings: SessionWarnings = [], maxLineBytes = MAX_LINE_BYTES): Session {
    checkWritable(path.dirname(file), file);
    lockSession(file, path.basename(file));
    let loaded: LoadedSession;
    try {
      loaded = loadSession(file, warnings, maxLineBytes);
    } catch (error) {
      unlockSession(file);
      throw error;
    }
    const { entries, messages, repair } = loaded;
    // 修补只发生在确认它是会话文件之后：截掉崩溃时写了一半的行，或补上结尾的换行，之后的追加才不会接在半行后面。
    if (repair && "truncateAt" in repair) fs.truncateSync(file, repair.truncateAt);
    else if (repair) fs.appendFileSync(file, "\n");
    // 新条目的编号接着文件里最大的那个往下排（largestNumber）。
    const last = entries.at(-1);
    const session = new Session(file, messages, last ? last.id : null, largestNumber(entries) + 1n, maxLineBytes);
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

  /**
   * 追加一条消息。同步写入：函数返回时这一行已经交给了操作系统。
   * 写不进去（磁盘满、只读、这一行对不上）不抛出：说一句哪条起没有保存，之后不再写，对话照常进行。
   */
  append(message: Message): void {
    if (this.unsaved) return;
    const entry: SessionEntry = { type: "message", id: `e${this.nextNumber}`, parentId: this.lastId, message };
    let sizeBefore: number | undefined;
    try {
      const line = entryLine(entry, this.maxLineBytes);
      if (!this.locked) this.lockOnFirstWrite();
      sizeBefore = fs.statSync(this.file, { throwIfNoEntry: false })?.size ?? 0;
      fs.appendFileSync(this.file, line);
    } catch (error) {
      this.unsaved = true;
      if (sizeBefore !== undefined) cutBack(this.file, sizeBefore);
      this.warn(`[会话未保存] ${path.basename(this.file)}：${ioReason(error)}。从${described(message)}起，这次对话的消息只显示在屏幕上、没有保存；已经保存的部分下次照常能打开`);
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
    if (this.locked) unlockSession(this.file);
    this.locked = false;
  }

  /** 新会话的第一次写入：建目录、加锁。 */
  private lockOnFirstWrite(): void {
    fs.mkdirSync(path.dirname(this.file), { recursive: true });
    lockSession(this.file, path.basename(this.file));
    this.locked = true;
  }
}

/**
 * 只读地加载一个会话文件：解析、检查每一行、沿 parentId 还原消息链。不加锁，也不改文件，
 * 所以查看器之类的程序可以放心调用；要接着写，用 Session.open。
 * 文件不像会话、或中间有坏行时抛出一句说明，指出文件与行号。maxLineBytes 是每行的上限。
 */
export function loadSession(file: string, warnings: SessionWarnings = [], maxLineBytes = MAX_LINE_BYTES): LoadedSession {
  const { entries, repair } = readEntries(file, warnings, maxLineBytes);
  const chain = walkBack(entries, path.basename(file)).filter((entry) => entry.type === "message");
  const loaded: LoadedSession = { entries, messages: chain.map((entry) => entry.message as Message) };
  if (repair) loaded.repair = repair;
  return loaded;
}

/**
 * 逐行解析（readLines 按字节切行，行的起点是字节位置：截断半行时要的正是它）。
 * 最后一行不完整（崩溃时写到一半）：记下从哪个字节截掉并报告；中间的坏行直接报错。
 */
function readEntries(file: string, warnings: SessionWarnings, maxLineBytes: number): Pick<LoadedSession, "entries" | "repair"> {
  const name = path.basename(file);
  const entries: RawEntry[] = [];
  const lineOfId = new Map<string, number>();
  let endsWithNewline = true;
  for (const { number: lineNumber, start, text, ended } of readLines(file, maxLineBytes)) {
    endsWithNewline = ended;
    // 开头的 UTF-8 BOM（有些编辑器保存时会加）跳过
    const line = lineNumber === 1 && text.startsWith("\uFEFF") ? text.slice(1) : text;
    if (line.trim() === "") continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch (error) {
      // 第一条就不是会话条目：这多半不是会话文件，原样拒绝，绝不截断
      if (entries.length === 0) throw notASession(name, lineNumber);
      if (!ended) {
        // 没有换行结尾的最后一行：上次写到一半就崩了。由 Session.open 从这一行的第一个字节截掉。
        warnings.push(`会话文件 ${name} 第 ${lineNumber} 行不完整（上次可能写到一半时退出），已跳过`);
        return { entries, repair: { truncateAt: start } };
      }
      throw new Error(`会话文件 ${name} 第 ${lineNumber} 行不是合法的 JSON：${(error as Error).message}`);
    }
    const problem = entryProblem(parsed);
    if (problem && entries.length === 0) throw notASession(name, lineNumber, problem);
    if (problem) throw new Error(`会话文件 ${name} 第 ${lineNumber} 行：${problem}`);
    const entry = parsed as RawEntry;
    // 重复的 id：两个进程同时写过这个文件（加锁之前的版本会这样），恢复出的会是两段对话拼起来的历史
    const earlier = lineOfId.get(entry.id);
    if (earlier !== undefined) throw new Error(`会话文件 ${name} 第 ${lineNumber} 行：id ${entry.id} 与第 ${earlier} 行重复（可能有两个进程同时写过它）`);
    lineOfId.set(entry.id, lineNumber);
    if (entry.type !== "message") {
      warnings.push(`会话文件 ${name} 第 ${lineNumber} 行：不认识的条目类型 ${JSON.stringify(entry.type)}，已跳过`);
    }
    entries.push(entry);
  }
  // 最后一行完整、只是少了换行（比如被编辑器去掉了）：补上，否则下一次追加会接在同一行。
  return entries.length > 0 && !endsWithNewline ? { entries, repair: { appendNewline: true } } : { entries };
}

/**
 * 文件里最大的 e<数字> 编号，新编号从它的下一个数起。用 BigInt：超过 2⁵³ 的数用 Number 加 1 会原地不动，
 * 撞上已有的编号、成为自己的父条目。别的写法（e1e400、abc、e01）不参与：新编号是 e 加一个不带前导零的数，
 * 不会与它们相同；超过 100 位的数也不参与，一个个往上数永远数不到它。
 */
function largestNumber(entries: RawEntry[]): bigint {
  let largest = 0n;
  for (const { id } of entries) {
    if (!/^e[1-9]\d{0,99}$/.test(id)) continue;
    const number = BigInt(id.slice(1));
    if (number > largest) largest = number;
  }
  return largest;
}

/**
 * 写到一半失败：把写进去的半行截掉。新文件的第一行若是半行，下次会被当成「不像会话文件」拒绝，
 * 所以不能只靠打开时的修补。截不掉（比如文件系统已经只读）也不要紧：不是第一行的半行，下次打开时照常截掉。
 */
function cutBack(file: string, size: number): void {
  try {
    fs.truncateSync(file, size);
  } catch {
    // 见上
  }
}

/** 一条消息，简短地说给人听：「没有保存」时指出是从哪一条起。 */
function described(message: Message): string {
  if (message.role === "user") return `你说的「${message.content.length > 20 ? `${message.content.slice(0, 20)}…` : message.content}」`;
  return message.role === "toolResult" ? `工具 ${message.toolName} 的结果` : "助手的回复";
}

/** 第一条内容就不是会话条目时的说明：明确告诉用户文件没有被动过。 */
function notASession(name: string, lineNumber: number, problem = "不是 JSON"): Error {
  return new Error(`${name} 不像会话文件（第 ${lineNumber} 行${problem.startsWith("不是") ? "" : "："}${problem}），没有改动它`);
}

/** 从最后一条往回沿 parentId 走到根，再反转成时间顺序。 */
function walkBack(entries: RawEntry[], name: string): RawEntry[] {
  const byId = new Map(entries.map((entry) => [entry.id, entry]));
  const chain: RawEntry[] = [];
  let current = entries.at(-1);
  while (current) {
    chain.push(current);
    if (chain.length > entries.length) throw new Error(`会话文件 ${name} 的 parentId 形成了环`);
    if (current.parentId === null) break;
    const parent = byId.get(current.parentId);
    if (!parent) throw new Error(`会话文件 ${name} 里找不到条目 ${current.parentId}（被 ${current.id} 引用）`);
    current = parent;
  }
  return chain.reverse();
}
