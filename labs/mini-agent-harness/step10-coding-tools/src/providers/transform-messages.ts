/**
 * 把会话里的消息整理成「可以发给模型的消息」。两个适配器在构造请求体之前都先过一遍。
 * 做法照 Pi 的 transformMessages（pi-ai 包的 src/api/transform-messages.ts）。
 * 会话文件与上下文本身不改：这里只影响发出去的请求。
 */
import type { Message, ToolCall, ToolResultMessage, ToolSpec } from "../types.js";
import { onlyKnownBlocks } from "./guards/stream.js";

/** 给没有结果的工具调用补上的内容，与 Pi 一字不差。 */
export const NO_RESULT = "No result provided";

export function transformMessages(messages: readonly Message[]): Message[] {
  const out: Message[] = [];
  // 上一条有效助手消息里还没等到结果的工具调用
  let pending: ToolCall[] = [];
  const answered = new Set<string>();

  // 每个 tool call 都必须有配对的结果，否则 OpenAI 与 Anthropic 都会让整个请求 400。
  // 取消、出错会留下落单的调用：在下一条助手/用户消息之前（或末尾）补一条错误结果。
  const flush = (): void => {
    for (const call of pending) {
      if (answered.has(call.id)) continue;
      const synthetic: ToolResultMessage = {
        role: "toolResult",
        toolCallId: call.id,
        toolName: call.name,
        content: NO_RESULT,
        isError: true,
      };
      out.push(synthetic);
    }
    pending = [];
    answered.clear();
  };

  for (const message of messages) {
    if (message.role === "toolResult") {
      answered.add(message.toolCallId);
      out.push(message);
      continue;
    }
    flush();
    if (message.role === "assistant") {
      // 出错或被取消的回复可能只有半句话、半个工具调用，重放给模型只会招来报错；
      // 跳过它，让模型从最后一个完整的状态接着来。会话文件里它仍然在。
      if (message.stopReason === "error" || message.stopReason === "aborted") continue;
      pending = message.content.filter((block): block is ToolCall => block.type === "toolCall");
    }
    out.push(onlyKnownBlocks(message));
  }
  flush();
  return out;
}

/** 一次请求最多带几个工具：OpenAI 的上限（Anthropic 没有写明上限；出处见 docs/8.6）。 */
export const MAX_TOOLS = 128;

/** 要随请求发出的工具。太多就抛错：streamRequest 把它变成一条「构造请求失败：…」，请求不会发出去。 */
export function toolsToSend(tools: readonly ToolSpec[] = []): readonly ToolSpec[] {
  if (tools.length > MAX_TOOLS) throw new Error(`注册了 ${tools.length} 个工具，超过模型服务一次最多接受的 ${MAX_TOOLS} 个：请少加载几个扩展`);
  return tools;
}

