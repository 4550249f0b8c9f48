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
 */

import fs from "node:fs";
import path from "node:path";

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
interface RawEntry {
  type: string;
  id: string;
  parentId: string | null;
  message?: Message;
}

/** 打开会话文件时发现、但不影响恢复的问题（例如被截断的最后一行）。 */
export type SessionWarnings = string[];

export class Session {
  private constructor(
    /** 会话文件的绝对路径。 */
    readonly file: string,
    /** 恢复出的消息，按时间顺序。 */
    private readonly restored: Message[],
    private lastId: string | null,
    private nextNumber: number,
  ) {}

  /**
   * 新建一个会话。文件等到第一条消息时才创建：只打开、没说话就退出，
   * 不会留下一个空文件让下次 --continue 误选。同名的旧文件会被替换。
   */
  static create(file: string): Session {
    fs.rmSync(file, { force: true });
    return new Session(file, [], null, 1);
  }

  /** 打开已有的会话文件：读出全部条目，沿 parentId 还原消息链。 */
  static open(file: string, warnings: SessionWarnings = []): Session {
    const entries = readEntries(file, warnings);
    const chain = walkBack(entries, path.basename(file)).filter((entry) => entry.type === "message");
    // 新条目的编号接着文件里最大的那个往下排（不用展开运算符：十万个参数会撑爆调用栈）。
    const maxNumber = entries.reduce((max, entry) => Math.max(max, Number(entry.id.slice(1)) || 0), 0);
    const last = entries.at(-1);
    return new Session(file, chain.map((entry) => entry.message as Message), last ? last.id : null, maxNumber + 1);
  }

  /** 目录里最近写过的会话文件；没有则返回 undefined。 */
  static latestFile(dir: string): string | undefined {
    if (!fs.existsSync(dir)) return undefined;
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

  /** 追加一条消息。同步写入：函数返回时这一行已经交给了操作系统。 */
  append(message: Message): void {
    const entry: SessionEntry = { type: "message", id: `e${this.nextNumber}`, parentId: this.lastId, message };
    if (this.lastId === null) fs.mkdirSync(path.dirname(this.file), { recursive: true });
    fs.appendFileSync(this.file, JSON.stringify(entry) + "\n");
    this.lastId = entry.id;
    this.nextNumber += 1;
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
}

/** 逐行解析。最后一行不完整（崩溃时写到一半）就截掉并报告；中间的坏行直接报错。 */
function readEntries(file: string, warnings: SessionWarnings): RawEntry[] {
  const name = path.basename(file);
  const text = fs.readFileSync(file, "utf8");
  const lines = text.split("\n");
  const entries: RawEntry[] = [];
  let offset = 0;
  for (const [index, line] of lines.entries()) {
    const lineNumber = index + 1;
    const isLast = index === lines.length - 1;
    const start = offset;
    offset += Buffer.byteLength(line, "utf8") + 1;
    if (line.trim() === "") continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch (error) {
      if (isLast) {
        // 没有换行结尾的最后一行：上次写到一半就崩了。截掉它，之后的追加才不会接在半行后面。
        fs.truncateSync(file, start);
        warnings.push(`会话文件 ${name} 第 ${lineNumber} 行不完整（上次可能写到一半时退出），已跳过`);
        break;
      }
      throw new Error(`会话文件 ${name} 第 ${lineNumber} 行不是合法的 JSON：${(error as Error).message}`);
    }
    const entry = parsed as Partial<RawEntry>;
    if (typeof entry.id !== "string" || entry.parentId === undefined || (entry.type === "message" && entry.message === undefined)) {
      throw new Error(`会话文件 ${name} 第 ${lineNumber} 行缺少 id、parentId 或 message`);
    }
    if (entry.type !== "message") {
      warnings.push(`会话文件 ${name} 第 ${lineNumber} 行：不认识的条目类型 ${JSON.stringify(entry.type)}，已跳过`);
    }
    entries.push(entry as RawEntry);
  }
  // 最后一行完整、只是少了换行（比如被编辑器去掉了）：补上，否则下一次追加会接在同一行。
  if (entries.length > 0 && !text.endsWith("\n") && fs.statSync(file).size === Buffer.byteLength(text)) {
    fs.appendFileSync(file, "\n");
  }
  return entries;
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
