/**
 * 读会话文件时守着 parentId 链的几道检查，session.ts 里各用一行调用。
 *
 *   - 一行的形状不对、或第一行就不像会话条目：指出文件与行号，不像会话的文件原样拒绝；
 *   - 重复的 id：两个进程同时写过它，恢复出的会是两段对话拼起来的历史；
 *   - 新编号接着最大的往下排：文件是外来的，编号不一定是小整数；
 *   - parentId 绕成环、或指向不存在的条目：报错而不是死循环、或悄悄少半段历史。
 */

import { entryProblem } from "./session-entry.js";

/** 文件里一个条目的最小形状：编号与父编号（完整的定义见 session.ts 的 RawEntry）。 */
interface Linked {
  id: string;
  parentId: string | null;
}

/** 第一条内容就不是会话条目时的说明：明确告诉用户文件没有被动过。 */
export function notASession(name: string, lineNumber: number, problem = "不是 JSON"): Error {
  return new Error(`${name} 不像会话文件（第 ${lineNumber} 行${problem.startsWith("不是") ? "" : "："}${problem}），没有改动它`);
}

/**
 * 形状不对、或 id 与前面某行重复时抛出一句说明（文件名与行号）。lineOfId 记着已读过的 id 在第几行。
 * 第一条就不对：这多半不是会话文件，按「不像会话文件」拒绝。
 */
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
 * 新条目的编号：文件里最大的 e<数字> 加一。用 BigInt：超过 2⁵³ 的数用 Number 加 1 会原地不动，
 * 撞上已有的编号、成为自己的父条目。别的写法（e1e400、abc、e01）不参与：新编号是 e 加一个不带前导零的数，
 * 不会与它们相同；超过 100 位的数也不参与，一个个往上数永远数不到它。
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

/** 父条目不存在：抛出一句说明，说清是哪个条目引用了哪个编号。 */
export function missingParent(name: string, entry: Linked): never {
  throw new Error(`会话文件 ${name} 里找不到条目 ${entry.parentId}（被 ${entry.id} 引用）`);
}
