/**
 * 练习 9 的参考答案（第 8.7 章）：还没吐字就失败时，在 StreamFn 这一层悄悄重来。
 *
 * 分诊的顺序：取消不重试 → 已经把字交给下游了不重试（收不回来） → 分类器说不可重试的不重试 → 次数用完不重试。
 * 失败的 done 只在决定不再重试时才交出去：否则下游会以为这一轮已经结束。
 */

import { sleep, turnRetryDelay } from "../src/retry/backoff.js";
import { isRetryableAssistantError } from "../src/retry/classify.js";
import type { AssistantMessage, StreamFn } from "../src/types.js";

export interface FirstTokenRetryOptions {
  /** 最多重试几次（不含第一次），默认 2。 */
  maxRetries?: number;
  /** 第一次重试前等多久，之后翻倍，默认 500 毫秒。 */
  baseDelayMs?: number;
}

export function retryBeforeFirstToken(streamFn: StreamFn, options: FirstTokenRetryOptions = {}): StreamFn {
  const maxRetries = options.maxRetries ?? 2;
  const baseDelayMs = options.baseDelayMs ?? 500;
  return async function* (context, streamOptions) {
    const signal = streamOptions?.signal;
    for (let attempt = 0; ; attempt++) {
      let sentText = false;
      let failed: AssistantMessage | undefined;
      for await (const event of streamFn(context, streamOptions)) {
        if (event.type !== "done") {
          // 文字（以及思考）一旦交给下游就收不回来：之后再失败也不能悄悄重来
          sentText = true;
          yield event;
          continue;
        }
        const retry = !sentText && attempt < maxRetries && !signal?.aborted && isRetryableAssistantError(event.message);
        if (retry) failed = event.message;
        else yield event;
      }
      if (!failed) return;
      const slept = await sleep(turnRetryDelay(attempt + 1, baseDelayMs), signal);
      if (!slept) {
        yield { type: "done", message: { role: "assistant", content: [], stopReason: "aborted" } };
        return;
      }
    }
  };
}
