/**
 * 工具的形状与注册表。
 * 模型只能调用注册表里有的工具；注册表负责查名字、校验参数、把一切失败变成错误结果。
 * 内置工具（calc、read_file）与扩展注册的工具走的是同一个注册表，宿主不区分来源。
 */

import type { ToolCall, ToolResultMessage, ToolSpec } from "../types.js";
import { validateArguments } from "./validate.js";

/** 交给每个工具的环境信息。 */
export interface ToolContext {
  /** 项目根目录：read_file 只允许读这里面的文件。 */
  cwd: string;
}

/** 工具执行的直接产出；注册表再把它包装成一条 toolResult 消息。 */
export interface ToolOutput {
  content: string;
  isError?: boolean;
}

/** 一个工具：给模型看的说明 + 真正干活的 execute。 */
export interface ToolDefinition {
  /** 模型用它点名调用；在注册表里必须唯一。 */
  name: string;
  /** 一句话说明：模型靠它判断什么时候该用这个工具。 */
  description: string;
  /** 参数的 JSON Schema（object 类型）。注册表在执行前按它校验参数。 */
  parameters: Record<string, unknown>;
  /** 可以抛异常：注册表会把异常变成一条错误结果，而不是让循环崩掉。 */
  execute(args: Record<string, unknown>, context: ToolContext): ToolOutput | Promise<ToolOutput>;
}

/**
 * 工具注册表。
 *
 * 三条规矩：
 *   1. 名字唯一：重名直接抛错（Pi 的做法相反，扩展工具会覆盖内置工具）；
 *   2. 未注册的名字、不合格的参数、执行时抛出的异常，统统变成 isError 的结果；
 *   3. execute 永不抛异常——工具出错是模型要处理的信息，不是宿主的故障。
 */
export class ToolRegistry {
  private readonly tools = new Map<string, ToolDefinition>();

  /** 已注册的工具名，按注册顺序。 */
  names(): string[] {
    return [...this.tools.keys()];
  }

  /** 注册一个工具。重名说明写错了，尽早暴露比悄悄覆盖好。 */
  register(tool: ToolDefinition): void {
    if (this.tools.has(tool.name)) {
      throw new Error(`工具名重复：${tool.name}`);
    }
    this.tools.set(tool.name, tool);
  }

  /** 交给模型的工具说明，放进 Context.tools。 */
  specs(): ToolSpec[] {
    return [...this.tools.values()].map(({ name, description, parameters }) => ({ name, description, parameters }));
  }

  /** 执行一次工具调用，结果总是一条 toolResult 消息。 */
  async execute(toolCall: ToolCall, context: ToolContext): Promise<ToolResultMessage> {
    const output = await this.run(toolCall, context);
    const result: ToolResultMessage = {
      role: "toolResult",
      toolCallId: toolCall.id,
      toolName: toolCall.name,
      content: output.content,
    };
    if (output.isError) result.isError = true;
    return result;
  }

  private async run(toolCall: ToolCall, context: ToolContext): Promise<ToolOutput> {
    const tool = this.tools.get(toolCall.name);
    if (!tool) return { content: `未注册的工具：${toolCall.name}`, isError: true };
    // 扩展注册的工具可能根本没有 parameters：说清楚，而不是在校验里崩掉
    if (typeof tool.parameters !== "object" || tool.parameters === null) {
      return { content: `工具 ${tool.name} 没有 parameters（参数的 JSON Schema），无法校验参数`, isError: true };
    }
    try {
      const problem = validateArguments(tool.parameters, toolCall.arguments);
      if (problem) return { content: `参数不合法：${problem}`, isError: true };
      return checkedOutput(tool.name, await tool.execute(toolCall.arguments, context));
    } catch (error) {
      return { content: `工具 ${tool.name} 出错：${describeError(error)}`, isError: true };
    }
  }
}

/**
 * 工具（多半是扩展写的）交回来的东西必须是 { content: 字符串 }。
 * 忘了 return、返回了数字或对象，都变成一条诚实的错误结果，而不是让宿主在后面崩掉。
 */
function checkedOutput(name: string, output: unknown): ToolOutput {
  const content = typeof output === "object" && output !== null ? (output as { content?: unknown }).content : undefined;
  if (typeof content === "string") return output as ToolOutput;
  return { content: `工具 ${name} 没有返回 { content: 字符串 }，收到的是 ${shown(output)}`, isError: true };
}

/** 收到的值说给人听：太长的截断，JSON 表示不了的（循环引用、BigInt）只说类型。 */
function shown(value: unknown): string {
  if (value === undefined) return "undefined（是不是忘了 return？）";
  try {
    const text = JSON.stringify(value) ?? typeof value;
    return text.length > 60 ? `${text.slice(0, 60)}…` : text;
  } catch {
    return typeof value;
  }
}

// 放在末尾而不是顶部：上面的行是第 8.5 章逐行引用的（step07），顶部多一行它们就都挪了位置（import 会被提升，效果相同）
import { describeError } from "../guards/shown.js";
