/**
 * 渲染层：把模型流里的事件变成终端上的文字。
 * 它只读事件、不改任何状态；换一个界面（网页、TUI）只需要换掉这个文件。
 */

import type { AssistantMessage, StreamEvent } from "./types.js";

/** 输出目标，默认是标准输出；测试时可以换成收集字符串的函数。 */
export type Write = (text: string) => void;

const stdoutWrite: Write = (text) => {
  process.stdout.write(text);
};

/**
 * 消费一次模型流，边收边显示，返回最后那条助手消息。
 * 失败不是异常：它是 stopReason 为 "error" 的消息，这里把它显示成一行错误。
 */
export async function renderStream(stream: AsyncIterable<StreamEvent>, write: Write = stdoutWrite): Promise<AssistantMessage> {
  // 文本是一段段流进来的：第一段前面打印「助手> 」，消息结束时再换行。
  let lineOpen = false;
  let message: AssistantMessage | undefined;
  for await (const event of stream) {
    if (event.type === "text_delta") {
      if (!lineOpen) write("助手> ");
      lineOpen = true;
      write(event.delta);
    } else {
      message = event.message;
    }
  }
  if (lineOpen) write("\n");
  // 按契约，模型流一定以 done 收尾；万一没有，也当作一次失败，而不是让程序崩溃。
  message ??= { role: "assistant", content: [], stopReason: "error", errorMessage: "模型流没有给出结束事件（done）" };
  if (message.stopReason === "error") write(`[错误] ${message.errorMessage ?? "未知错误"}\n`);
  return message;
}
