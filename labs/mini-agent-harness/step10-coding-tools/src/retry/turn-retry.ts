/**
 * 第三层重试：turn 级，用户看得见。
 *
 * runAgentLoop 一个字不改，重试全在它外面：一次运行结束后看最后那条助手消息——
 *   - 被取消：到此为止（取消永远不重试）；
 *   - 上下文溢出：压缩一次、重跑一次（溢出不走退避重试，再溢出就放弃）；
 *   - 可重试的错误：从运行时上下文里删掉这条失败消息，等 2 s、4 s、8 s……再跑一次；
 *   - 其他错误，或重试次数用完：放弃，把最后的错误报出来。
 * 照 Pi 的 AgentSession（_handlePostAgentRun / _prepareRetry）：失败消息在经过时已经
 * 作为 message 事件被会话文件记下，删掉的只是运行时上下文里的那一份——「历史里有，请求里没有」。
 */
import { runAgentLoop, type RunAgentLoopOptions } from "../agent-loop.js";
import type { AssistantMessage, HarnessEvent, Message, RetryEvent } from "../types.js";
import { sleep, turnRetryDelay, DEFAULT_MAX_TURN_DELAY_MS } from "./backoff.js";
import { isContextOverflow, isRetryableAssistantError } from "./classify.js";
import { compactMessages } from "./compaction.js";

export const DEFAULT_MAX_RETRIES = 3;
export const DEFAULT_BASE_DELAY_MS = 2000;

/** 重试被 Ctrl+C 取消时 auto_retry_end 里的 finalError。 */
export const RETRY_CANCELLED = "重试已取消";
/** 压缩并重试一次之后又溢出了。 */
export const OVERFLOW_RECOVERY_FAILED = "压缩并重试一次之后仍然超出上下文窗口。请缩短输入，或换一个上下文窗口更大的模型。";

export interface RunWithRetryOptions extends RunAgentLoopOptions {
  /** 最多重试几次（不含第一次），默认 3；0 = 不重试。 */
  maxRetries?: number;
  /** 第一次重试前等多久（毫秒），之后每次翻倍，默认 2000。 */
  baseDelayMs?: number;
  /** 单次等待的上限（毫秒），默认 60 000。 */
  maxDelayMs?: number;
  /** 模型的上下文窗口（token）。给了才能认出「不报错的溢出」。 */
  contextWindow?: number;
}

/**
 * 带重试地运行 Agent 循环。产出 runAgentLoop 的全部事件，外加 RetryEvent。
 * 重跑时轮次从「第 1 轮」重新数：每次重跑都是一次新的 runAgentLoop。
 */
export async function* runWithRetry(options: RunWithRetryOptions): AsyncGenerator<HarnessEvent> {
  const { context, signal, contextWindow } = options;
  const maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
  const baseDelayMs = options.baseDelayMs ?? DEFAULT_BASE_DELAY_MS;
  const maxDelayMs = options.maxDelayMs ?? DEFAULT_MAX_TURN_DELAY_MS;
  if (!Number.isInteger(maxRetries) || maxRetries < 0) throw new RangeError(`maxRetries 必须是非负整数，收到的是 ${maxRetries}`);

  /** 正在进行第几次重试；0 = 没在重试（Pi 的 _retryAttempt）。 */
  let attempt = 0;
  /** 这一段里是否已经压缩重试过一次（Pi 的 _overflowRecoveryAttempted）。 */
  let overflowRetried = false;
  const ended = (success: boolean, finalError?: string): RetryEvent => {
    const event: RetryEvent = { type: "auto_retry_end", success, attempt, ...(finalError !== undefined ? { finalError } : {}) };
    attempt = 0;
    return event;
  };

  for (;;) {
    let last: AssistantMessage | undefined;
    for await (const event of runAgentLoop(options)) {
      if (event.type === "abort" && attempt > 0) yield ended(false, RETRY_CANCELLED);
      yield event;
      if (event.type !== "message" || event.message.role !== "assistant") continue;
      last = event.message;
      const reason = last.stopReason;
      if (reason !== "error" && reason !== "length") overflowRetried = false;
      // 重试出了一条正常的回复：这一段重试成功了（与 Pi 一样，不等整次运行结束）
      if (reason !== "error" && reason !== "aborted" && attempt > 0) yield ended(true);
    }
    // 取消：循环已经产出过 abort（上面也补过 auto_retry_end），不再做任何事。
    // 运行刚结束才按下的 Ctrl+C 不在这里处理：下面的等待会立刻醒来，或重跑时循环自己在取消点一停下
    if (!last || last.stopReason === "aborted") return;

    if (isContextOverflow(last, contextWindow)) {
      // 溢出交给压缩，不走退避重试；之前若在重试，那一段到此失败
      if (last.stopReason === "error" && attempt > 0) yield ended(false, last.errorMessage);
      if (last.stopReason === "stop") {
        // 回复本身是成功的，只是输入已经超过窗口：压缩，好让下一次请求装得下，但不重跑
        const result = compactMessages(context.messages);
        if (result.dropped > 0) {
          replaceMessages(context.messages, result.messages);
          yield { type: "compaction", dropped: result.dropped, willRetry: false };
        }
        return;
      }
      if (overflowRetried) {
        yield { type: "compaction_failed", errorMessage: OVERFLOW_RECOVERY_FAILED };
        return;
      }
      overflowRetried = true;
      removeMessage(context.messages, last);
      const result = compactMessages(context.messages);
      if (result.dropped === 0) {
        yield { type: "compaction_failed", errorMessage: `上下文溢出，无法压缩：${result.reason}` };
        return;
      }
      replaceMessages(context.messages, result.messages);
      yield { type: "compaction", dropped: result.dropped, willRetry: true };
      continue;
    }

    if (last.stopReason !== "error") return;
    if (!isRetryableAssistantError(last) || attempt >= maxRetries) {
      if (attempt > 0) yield ended(false, last.errorMessage);
      return;
    }

    attempt++;
    const delayMs = turnRetryDelay(attempt, baseDelayMs, maxDelayMs);
    yield {
      type: "auto_retry_start",
      attempt,
      maxAttempts: maxRetries,
      delayMs,
      errorMessage: last.errorMessage ?? "未知错误",
    };
    // 失败消息离开运行时上下文（会话文件里已经记下了它）
    removeMessage(context.messages, last);
    if (!(await sleep(delayMs, signal))) {
      // 等待中按了 Ctrl+C：立刻收场，不再发请求
      yield ended(false, RETRY_CANCELLED);
      yield { type: "abort" };
      return;
    }
  }
}

/** 原地去掉某一条消息（按对象身份找，从后往前）。 */
function removeMessage(messages: Message[], target: Message): void {
  const index = messages.lastIndexOf(target);
  if (index !== -1) messages.splice(index, 1);
}

/**
 * 原地换掉数组内容：调用方手里的 context.messages 还是同一个数组。
 * 逐条 push 而不是 splice(0, n, ...next)：十万条消息展开成参数会撑爆调用栈。
 */
function replaceMessages(target: Message[], next: readonly Message[]): void {
  target.length = 0;
  for (const message of next) target.push(message);
}

/** --retries 的上限：每次最多等 60 秒，100 次已是一个多小时；再大只会是笔误（Number 还会悄悄丢掉精度）。 */
export const MAX_RETRIES = 100;
