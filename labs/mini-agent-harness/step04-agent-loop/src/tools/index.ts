/**
 * 内置工具与执行入口。
 * 工具出错是模型要处理的信息，不是宿主的故障：找不到工具、工具抛异常，
 * 都变成一条 isError 的结果交回模型，循环照常往下走。
 */

import { describeError } from "../describe-error.js";
import type { ToolCall, ToolResultMessage } from "../types.js";
import { calcTool } from "./calc.js";
import type { ToolDefinition, ToolOutput } from "./types.js";

/** 这一步的全部工具。 */
export const BUILTIN_TOOLS: ToolDefinition[] = [calcTool];

/** 执行一次工具调用，结果总是一条 toolResult 消息；永不抛异常。 */
export async function executeTool(tools: ToolDefinition[], toolCall: ToolCall): Promise<ToolResultMessage> {
  const output = await run(tools, toolCall);
  const result: ToolResultMessage = {
    role: "toolResult",
    toolCallId: toolCall.id,
    toolName: toolCall.name,
    content: output.content,
  };
  if (output.isError) result.isError = true;
  return result;
}

async function run(tools: ToolDefinition[], toolCall: ToolCall): Promise<ToolOutput> {
  const tool = tools.find((candidate) => candidate.name === toolCall.name);
  if (!tool) return { content: `未知的工具：${toolCall.name}`, isError: true };
  try {
    return await tool.execute(toolCall.arguments);
  } catch (error) {
    return { content: `工具 ${tool.name} 出错：${describeError(error)}`, isError: true }; // 你写的工具可能抛出任何值
  }
}
