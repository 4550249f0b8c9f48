/**
 * 练习 3 的参考答案（第 8.2 章）：消费一次模型流，顺便做统计。
 */

import type { StopReason, StreamEvent } from "../src/types.js";

export interface StreamStats {
  /** 所有 text_delta 拼起来的文字。 */
  text: string;
  /** 收到了几个 text_delta。 */
  deltas: number;
  /** 文字有多少个字符（按 Unicode 码点，emoji 算一个）。 */
  chars: number;
  stopReason: StopReason;
  errorMessage?: string;
}

export async function measureStream(stream: AsyncIterable<StreamEvent>): Promise<StreamStats> {
  let text = "";
  let deltas = 0;
  let stopReason: StopReason | undefined;
  let errorMessage: string | undefined;
  for await (const event of stream) {
    if (event.type === "text_delta") {
      text += event.delta;
      deltas += 1;
    } else {
      stopReason = event.message.stopReason;
      errorMessage = event.message.errorMessage;
    }
  }
  // 按契约流一定以 done 收尾；没有的话也当作一次失败，和 renderStream 的处理一样
  if (stopReason === undefined) {
    stopReason = "error";
    errorMessage = "模型流没有给出结束事件（done）";
  }
  // text.length 数的是 UTF-16 单元，😀 会被数成 2；展开成码点再数
  const stats: StreamStats = { text, deltas, chars: [...text].length, stopReason };
  if (errorMessage !== undefined) stats.errorMessage = errorMessage;
  return stats;
}
