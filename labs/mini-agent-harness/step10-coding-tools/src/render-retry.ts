/**
 * 重试层事件的中文状态行。render.ts 遇到 RetryEvent 时调用它；
 * 只读事件、不碰状态，与 render.ts 的其余部分一样。
 * 打印的都是配置出来的数（等多久、第几次），从不打印实测的耗时：演示输出要稳定。
 */
import type { HttpRetryWait } from "./providers/http-retry.js";
import { startCountdown, type CountdownOutput } from "./retry/countdown.js";
import { RETRY_CANCELLED } from "./retry/turn-retry.js";
import type { HarnessEvent, RetryEvent } from "./types.js";

const RETRY_EVENT_TYPES: ReadonlySet<string> = new Set<RetryEvent["type"]>([
  "auto_retry_start",
  "auto_retry_end",
  "compaction",
  "compaction_failed",
]);

/** 是不是重试层的事件（而不是 runAgentLoop 的）。 */
export function isRetryEvent(event: HarnessEvent): event is RetryEvent {
  return RETRY_EVENT_TYPES.has(event.type);
}

/** 一个重试层事件 → 一行文字（带换行）。 */
export function describeRetryEvent(event: RetryEvent): string {
  switch (event.type) {
    case "auto_retry_start":
      return `[重试] 第 ${event.attempt}/${event.maxAttempts} 次，${event.delayMs}ms 后重试：${event.errorMessage}\n`;
    case "auto_retry_end":
      if (event.success) return `[重试成功] 第 ${event.attempt} 次重试成功\n`;
      // 「尝试」是以错误结束的那几次：第一次请求，加上已经做完的重试
      if (event.finalError === RETRY_CANCELLED) return `[重试取消] 已尝试 ${event.attempt} 次，第 ${event.attempt} 次重试已取消\n`;
      return `[重试失败] 已重试 ${event.attempt} 次，放弃：${event.finalError ?? "未知错误"}\n`;
    case "compaction":
      return event.willRetry
        ? `[压缩] 上下文超出窗口，省略最早的 ${event.dropped} 条消息后重试一次\n`
        : `[压缩] 输入已超出上下文窗口，省略最早的 ${event.dropped} 条消息（从下一次请求起生效）\n`;
    case "compaction_failed":
      return `[压缩失败] ${event.errorMessage}\n`;
  }
}

/**
 * HTTP 层的等待（用户原本看不见这一层）：超过 1 秒就显示一行倒计时。
 * main.ts 把它交给 Provider 的 onRetryWait；终端上原地更新，否则只打印一行（数字是服务器给的或算出来的，不是实测的）。
 */
export function showHttpRetryWait(wait: HttpRetryWait, out?: CountdownOutput): () => void {
  const who = wait.requestedByServer ? "服务器要求等待" : "等待";
  return startCountdown(wait.delayMs, (left) => `${who} ${left} 秒，第 ${wait.attempt}/${wait.maxRetries} 次重试…（Ctrl+C 取消）`, out);
}

/** 回合层的等待：「[重试] …」那一行已经说了要等多久；终端上在它下面再加一行原地更新的倒计时。 */
export function showTurnRetryWait(delayMs: number, out: CountdownOutput): () => void {
  return startCountdown(delayMs, (left) => `  还要等 ${left} 秒…（Ctrl+C 取消）`, out);
}
