/**
 * 会话文件里每一行的形状，与把它们串起来的 parentId 链。会话文件是外来的输入（旧版本写的、被人手改过的，甚至不是会话文件）：
 * JSON.parse 只保证「是合法的 JSON」，一行 null、role 是 system 的消息都解析得出来，却会让之后每一轮出错。
 */

import { isRecord, MAX_ENTRY_DEPTH, tooDeep } from "./json.js";
import { shownOnOneLine } from "./shown.js";

/** 文件里一个条目的最小形状：编号与父编号（完整的定义见 session.ts 的 RawEntry）。 */
type Linked = { id: string; parentId: string | null };

/** 收到的值，简短地说给人听：最多 40 个字符，免得一行错误刷满屏幕。 */
function shown(value: unknown): string {
  return shownOnOneLine(value === undefined ? "undefined" : JSON.stringify(value), 40);
}

/** 条目不合格时返回一句说明（不含文件名与行号）。不认识的条目类型是别的版本写的：只检查 id 与 parentId，留在链上。 */
export function entryProblem(entry: unknown): string | undefined {
  // 先数层数：太深的值连说出「收到的是什么」（JSON.stringify）都会用完调用栈
  const deep = tooDeep(entry, MAX_ENTRY_DEPTH);
  if (deep) return deep;
  if (!isRecord(entry)) return `应当是一个 JSON 对象，收到的是 ${shown(entry)}`;
  if (typeof entry.type !== "string") return `缺少字符串字段 type，收到的是 ${shown(entry.type)}`;
  if (typeof entry.id !== "string" || entry.id === "") return `缺少字符串字段 id，收到的是 ${shown(entry.id)}`;
  if (entry.parentId !== null && typeof entry.parentId !== "string") return `parentId 应当是字符串或 null，收到的是 ${shown(entry.parentId)}`;
  if (entry.type !== "message") return undefined;
  const problem = messageProblem(entry.message);
  return problem ? `message ${problem}` : undefined;
}

function messageProblem(message: unknown): string | undefined {
  if (!isRecord(message)) return `应当是一个对象，收到的是 ${shown(message)}`;
  switch (message.role) {
    case "user":
      return typeof message.content === "string" ? undefined : `的 content 应当是字符串，收到的是 ${shown(message.content)}`;
    case "assistant":
      if (typeof message.stopReason !== "string") return `缺少 stopReason，收到的是 ${shown(message.stopReason)}`;
      if (!Array.isArray(message.content)) return `的 content 应当是数组，收到的是 ${shown(message.content)}`;
      for (const part of message.content) {
        const problem = partProblem(part);
        if (problem) return `的 content 里有一块 ${problem}`;
      }
      return undefined;
    case "toolResult":
      if (typeof message.toolCallId !== "string" || typeof message.toolName !== "string") return "缺少 toolCallId 或 toolName";
      if (message.toolCallId === "") return "的 toolCallId 是空的";
      if (typeof message.content !== "string") return `的 content 应当是字符串，收到的是 ${shown(message.content)}`;
      return undefined;
    default:
      return `的 role 应当是 user、assistant 或 toolResult，收到的是 ${shown(message.role)}`;
  }
}

/** 认识的三种块检查字段（加载时不拒绝，之后每一轮请求都会出错，例如空的工具调用 id）；别的类型只要求有 type。 */
function partProblem(part: unknown): string | undefined {
  if (!isRecord(part) || typeof part.type !== "string") return `不是带 type 的对象：${shown(part)}`;
  if (part.type === "text" && typeof part.text !== "string") return "text 缺少字符串字段 text";
  if (part.type === "thinking" && typeof part.thinking !== "string") return `thinking 的 thinking 应当是字符串，收到的是 ${shown(part.thinking)}`;
  if (part.type === "thinking" && part.thinkingSignature !== undefined && typeof part.thinkingSignature !== "string") {
    return `thinking 的 thinkingSignature 应当是字符串，收到的是 ${shown(part.thinkingSignature)}`;
  }
  if (part.type === "toolCall" && (typeof part.id !== "string" || typeof part.name !== "string" || !isRecord(part.arguments))) {
    return "toolCall 缺少 id、name 或 arguments";
  }
  if (part.type === "toolCall" && (part.id === "" || part.name === "")) return `toolCall 的 ${part.id === "" ? "id" : "name"} 是空的`;
  return undefined;
}

/** 第一条内容就不是会话条目时的说明：明确告诉用户文件没有被动过。 */
export function notASession(name: string, lineNumber: number, problem = "不是 JSON"): Error {
  return new Error(`${name} 不像会话文件（第 ${lineNumber} 行${problem.startsWith("不是") ? "" : "："}${problem}），没有改动它`);
}

/** 形状不对、或 id 与前面某行重复（两个进程同时写过它）时抛出一句说明；第一条就不对的多半不是会话文件。lineOfId 记着读过的 id。 */
export function rejectMalformedEntry(name: string, lineNumber: number, parsed: unknown, lineOfId: Map<string, number>): void {
  const problem = entryProblem(parsed);
  if (problem && lineOfId.size === 0) throw notASession(name, lineNumber, problem);
  if (problem) throw new Error(`会话文件 ${name} 第 ${lineNumber} 行：${problem}`);
  const { id } = parsed as Linked;
  const earlier = lineOfId.get(id);
  if (earlier !== undefined) throw new Error(`会话文件 ${name} 第 ${lineNumber} 行：id ${id} 与第 ${earlier} 行重复（可能有两个进程同时写过它）`);
  lineOfId.set(id, lineNumber);
}

/**
 * 新条目的编号：文件里最大的 e<数字> 加一。用 BigInt：超过 2⁵³ 的数用 Number 加 1 会原地不动，撞上已有的编号。
 * 别的写法（e1e400、abc、e01）不会与新编号相同，超过 100 位的数一个个往上数永远数不到：都不参与。
 */
export function nextNumberAfter(entries: readonly Linked[]): bigint {
  let largest = 0n;
  for (const { id } of entries) {
    if (!/^e[1-9]\d{0,99}$/.test(id)) continue;
    const number = BigInt(id.slice(1));
    if (number > largest) largest = number;
  }
  return largest + 1n;
}

/** 往回走的链比条目总数还长：parentId 绕成了环（只有手工改坏的文件才会这样）。 */
export function rejectCycle(chainLength: number, entryCount: number, name: string): void {
  if (chainLength > entryCount) throw new Error(`会话文件 ${name} 的 parentId 形成了环`);
}

export function missingParent(name: string, entry: Linked): never {
  throw new Error(`会话文件 ${name} 里找不到条目 ${entry.parentId}（被 ${entry.id} 引用）`);
}
