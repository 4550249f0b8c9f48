/**
 * tool_call 处理函数的防线：处理函数是学习者写的代码，它的每一种失误都要变成「这次调用不执行」加一句中文，
 * 而不是让工具照常执行（出了错的闸门不能等于没有闸门），也不是让整个 harness 卡住。
 *   - 抛异常或返回被拒绝的 promise：阻止（同 Pi 的 fail-safe），理由里说出是哪个扩展、出了什么错，终端上也打一行；
 *   - 一直不回答：Pi 会一直等下去，Ctrl+C 也救不了；这里与这一轮的 signal 赛跑，没有终端时再加一个时限；
 *   - 返回了奇怪的东西（数字、字符串、reason 不是字符串）：按 Pi 的读法，只看 block 真不真，reason 不是字符串就不用它。
 */

import { guardCall } from "../guard.js";
import { describeError, visible } from "./shown.js";

export interface Answer {
  block: boolean;
  reason?: string;
}

/** 运行一个处理函数，把它的结局变成一个回答；放行时返回 undefined。limitMs 不给就不限时。 */
export async function answerOf(run: () => unknown, source: string | undefined, signal: AbortSignal | undefined, limitMs: number | undefined): Promise<Answer | undefined> {
  const name = source ?? "（未命名）";
  const work = Promise.resolve().then(run); // 同步抛出的异常也变成拒绝
  work.catch(() => {}); // 不再等它之后，它迟到的拒绝不能变成让进程退出的未处理拒绝
  let outcome: { value: unknown } | "cancelled" | "too-long";
  try {
    outcome = await untilSettled(work, signal, limitMs);
  } catch (error) {
    console.error(visible(`[扩展错误] tool_call 出错，已阻止这次调用：${describeError(error)}（扩展 ${name}）`));
    return { block: true, reason: `扩展 ${name} 的 tool_call 出错，已阻止这次调用：${describeError(error)}` };
  }
  if (outcome === "cancelled") return { block: true, reason: `这一轮已取消：扩展 ${name} 还没回答，工具没有执行` };
  if (outcome === "too-long") {
    console.error(`[扩展错误] 扩展 ${name} 的 tool_call ${limitMs! / 1000} 秒内没有回答，已阻止这次调用`);
    return { block: true, reason: `扩展 ${name} 的 tool_call ${limitMs! / 1000} 秒内没有回答（没有终端，没人能回答它的问题？），已阻止这次调用` };
  }
  const value = outcome.value as { block?: unknown; reason?: unknown } | null | undefined;
  if (typeof value !== "object" || value === null || !value.block) return undefined;
  return typeof value.reason === "string" && value.reason !== "" ? { block: true, reason: value.reason } : { block: true };
}

/** 等 work 有结果；signal 先触发是 "cancelled"，时限先到是 "too-long"。信号与时限用 guard.ts 的 guardCall，用完就收拾掉。 */
async function untilSettled(work: Promise<unknown>, signal: AbortSignal | undefined, limitMs: number | undefined): Promise<{ value: unknown } | "cancelled" | "too-long"> {
  if (signal?.aborted) return "cancelled";
  const guard = guardCall(signal, limitMs);
  try {
    return await Promise.race([work.then((value) => ({ value })), guard.ended.then(() => (guard.timedOut() ? ("too-long" as const) : ("cancelled" as const)))]);
  } finally {
    guard.dispose();
  }
}
