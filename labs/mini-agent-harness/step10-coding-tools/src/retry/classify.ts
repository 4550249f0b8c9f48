/**
 * 失败分诊：一条 stopReason 为 "error" 的助手消息，该重试、该压缩，还是该放弃？
 *
 * 只看 errorMessage 的文字（以及 usage）——错误已经被「带回来」编码成消息了，
 * 这里手里没有异常对象、没有状态码，只有 Provider 与网络层写下的原文。
 * 规则照 Pi（@earendil-works/pi-ai 1.6.0 的 isContextOverflow / isRetryableAssistantError），Pi 的每一条模式都收在
 * patterns.ts 的四张表里（与 Pi 不同的几处也写在那里）。分诊的顺序：
 *   1. 先认上下文溢出：它是确定性失败，重试一万次也还是溢出，要交给压缩；
 *   2. 再排除额度/账单类：花钱才能解决，等多久都没用；
 *   3. 最后才看是不是瞬时故障：过载、限流、5xx、网络抖动、流被掐断……
 * 顺序不能反：有的限流文案里也有「too many tokens」，有的额度错误也是 429。
 */
import type { AssistantMessage } from "../types.js";
import { NON_OVERFLOW_PATTERNS, NON_RETRYABLE_PATTERNS, OVERFLOW_PATTERNS, RETRYABLE_PATTERNS } from "./patterns.js";

const matchesAny = (patterns: readonly RegExp[], text: string): boolean => patterns.some((p) => p.test(text));

/**
 * 这条消息是不是上下文溢出。三种情形：
 *   1. 报错了，错误文字命中表一，且不命中表二；
 *   2. 给了 contextWindow：回复「成功」了，但输入 token（含缓存命中）已经超过窗口——
 *      有的服务不报错，默默收下超长输入（静默溢出）；
 *   3. 给了 contextWindow：因 length 停下、一个字都没输出、输入占满了 99% 的窗口——
 *      有的服务先把输入截到窗口大小，于是没地方写回答了。
 */
export function isContextOverflow(message: AssistantMessage, contextWindow?: number): boolean {
  const error = message.errorMessage;
  if (message.stopReason === "error" && error) {
    if (!matchesAny(NON_OVERFLOW_PATTERNS, error) && matchesAny(OVERFLOW_PATTERNS, error)) return true;
  }
  const usage = message.usage;
  if (!contextWindow || !usage) return false;
  const input = usage.input + usage.cacheRead;
  if (message.stopReason === "stop" && input > contextWindow) return true;
  if (message.stopReason === "length" && usage.output === 0 && input >= contextWindow * 0.99) return true;
  return false;
}

/**
 * 这条失败消息像不像瞬时故障。只管分类，不管预算与等待；
 * 调用方要先用 isContextOverflow 把溢出挑出去（溢出交给压缩，不走重试）。
 */
export function isRetryableAssistantError(message: AssistantMessage): boolean {
  if (message.stopReason !== "error" || !message.errorMessage) return false;
  if (matchesAny(NON_RETRYABLE_PATTERNS, message.errorMessage)) return false;
  return matchesAny(RETRYABLE_PATTERNS, message.errorMessage);
}

export type ErrorClass = "ok" | "aborted" | "overflow" | "retryable" | "fatal";

/** 一步给出结论，按分诊的顺序：取消 → 溢出 → 成功 → 可重试 → 致命。演示与文档用它。 */
export function classifyAssistantError(message: AssistantMessage, contextWindow?: number): ErrorClass {
  if (message.stopReason === "aborted") return "aborted";
  if (isContextOverflow(message, contextWindow)) return "overflow";
  if (message.stopReason !== "error") return "ok";
  return isRetryableAssistantError(message) ? "retryable" : "fatal";
}
