/**
 * 渲染层：把循环产出的事件变成终端上的文字。
 * 它只读事件、不改任何状态；换一个界面（网页、TUI）只需要换掉这个文件。
 */

import { describeRetryEvent, isRetryEvent, showTurnRetryWait } from "./render-retry.js";
import type { AssistantMessage, HarnessEvent, ToolResultMessage } from "./types.js";
import { clipForTerminal, colorAllowed, visible } from "./guards/shown.js";
/** 输出目标，默认是标准输出；测试时可以换成收集字符串的函数。 */
export type Write = (text: string) => void;

const stdoutWrite: Write = (text) => {
  process.stdout.write(text);
};

/** 消费整条事件流，边收边显示。 */
export async function renderEvents(
  events: AsyncIterable<HarnessEvent>,
  write: Write = stdoutWrite,
  /** 输出是不是终端：是才调暗推理、才原地更新倒计时。默认看标准输出。 */
  terminal = write === stdoutWrite && process.stdout.isTTY === true,
): Promise<void> {
  // 助手的文本是一段段流进来的：第一段前面打印「助手> 」，消息结束时再换行。
  // 思考模型的推理同样流进来，每一行前面打印「思考> 」；在终端上调暗，免得和回答混在一起。
  let open: "text" | "thinking" | undefined;
  /** 推理里刚遇到换行：等下一段文字来了再换行并补上「思考> 」，免得留下一行空的前缀。 */
  let thinkingBreak = false;
  const dim = terminal && colorAllowed({ isTTY: true }); // TERM=dumb 或设了 NO_COLOR 时不上色
  /** 收起正在显示的重试倒计时；下一个事件一到就收。 */
  let stopCountdown = (): void => {};
  const closeLine = (): void => {
    if (open === "thinking" && dim) write("\x1b[0m");
    if (open) write("\n");
    open = undefined;
  };

  for await (const event of events) {
    stopCountdown();
    stopCountdown = () => {};
    // 重试层的事件：各占一行；终端上，等待期间再加一行倒计时
    if (isRetryEvent(event)) {
      closeLine();
      write(visible(describeRetryEvent(event))); // 错误原文来自服务器
      if (event.type === "auto_retry_start" && terminal) stopCountdown = showTurnRetryWait(event.delayMs, { write, isTTY: true });
      continue;
    }
    switch (event.type) {
      case "turn_start":
        write(`[第 ${event.turn} 轮]\n`);
        break;
      case "text_delta":
        if (open !== "text") {
          closeLine();
          write("助手> ");
        }
        open = "text";
        write(visible(event.delta));
        break;
      case "thinking_delta":
        if (open !== "thinking") {
          closeLine();
          write(dim ? "\x1b[2m思考> " : "思考> ");
          thinkingBreak = false;
        }
        open = "thinking";
        for (const part of event.delta.split(/(\n+)/)) {
          if (part.startsWith("\n")) thinkingBreak = true;
          else if (part !== "") {
            if (thinkingBreak) write("\n思考> ");
            thinkingBreak = false;
            write(visible(part));
          }
        }
        break;
      case "message":
        closeLine();
        if (event.message.role === "assistant") write(describeAssistant(event.message));
        else write(describeToolResult(event.message));
        break;
      case "tool_call":
        // 工具调用已经随助手消息显示过了；这个事件是留给扩展观察的。
        break;
      case "turn_end":
        write(`[第 ${event.turn} 轮结束]\n`);
        break;
      case "abort":
        closeLine();
        write("[已取消]\n");
        break;
      case "max_turns":
        write(`[已达到最大轮数 ${event.maxTurns}，停止]\n`);
        break;
    }
  }
  stopCountdown();
  closeLine();
}

/** 助手消息流完之后要补显示的：它发起的工具调用，以及失败原因。 */
function describeAssistant(message: AssistantMessage): string {
  let text = "";
  for (const part of message.content) {
    if (part.type === "toolCall") text += `[工具调用] ${visible(clipForTerminal(`${part.name} ${JSON.stringify(part.arguments)}`))}\n`;
  }
  if (message.stopReason === "error") text += `[错误] ${visible(clipForTerminal(message.errorMessage ?? "未知错误"))}\n`;
  // 真实模型有输出上限（max_tokens），说到一半被截断时要让人知道这不是完整回答。
  if (message.stopReason === "length") text += "[提示] 回复达到长度上限，被截断了\n";
  return text;
}

/** 工具结果只显示第一行，多行内容注明总行数，免得刷屏。 */
function describeToolResult(result: ToolResultMessage): string {
  const lines = result.content.replace(/\n+$/, "").split("\n");
  const shown = lines.length > 1 ? `${clipForTerminal(lines[0]!)} …（共 ${lines.length} 行）` : clipForTerminal(result.content);
  return `[工具结果] ${visible(`${result.toolName} → ${shown}`)}${result.isError ? "（出错）" : ""}\n`;
}
