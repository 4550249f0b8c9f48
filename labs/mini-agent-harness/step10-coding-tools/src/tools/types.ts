/**
 * 工具的形状与注册表。
 * 模型只能调用注册表里有的工具；注册表负责查名字、校验参数、把一切失败变成错误结果。
 * 内置工具（calc、read_file）与扩展注册的工具走的是同一个注册表，宿主不区分来源。
 */

import { describeError } from "../guards/shown.js";
import { guardCall, toolTimeoutMessage } from "../guard.js";
import type { ToolCall, ToolResultMessage, ToolSpec } from "../types.js";
import { validateArguments } from "./validate.js";

/** 交给每个工具的环境信息。 */
export interface ToolContext {
  /** 项目根目录：read_file 只允许读这里面的文件。 */
  cwd: string;
  /**
   * 取消信号。调用方交进来的是这次回复的信号（Ctrl+C）；
   * 注册表在执行每个工具前换成这次调用自己的信号：Ctrl+C 或超时都会触发它。
   * 工具可以把它交给 fetch、readFile 之类，让正在做的事真的停下。
   */
  signal?: AbortSignal;
  /** 每次工具调用的时限（毫秒）。不给就不限时。 */
  timeoutMs?: number;
  /**
   * 执行之前问一声（扩展的 tool_call 钩子，见 tool-call.ts；Pi 的 agent 循环里叫 beforeToolCall）。
   * 返回一句理由就不执行，模型收到的错误结果就是这句话；返回 undefined 就放行。
   */
  beforeToolCall?: (toolCall: ToolCall, context: ToolContext) => Promise<string | undefined>;
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
 * 五条规矩：
 *   1. 名字唯一：重名直接抛错（Pi 的做法相反，扩展工具会覆盖内置工具）；
 *   2. 未注册的名字、不合格的参数、执行时抛出的异常，统统变成 isError 的结果；
 *   3. execute 永不抛异常——工具出错是模型要处理的信息，不是宿主的故障；
 *   4. 执行之前问 beforeToolCall（扩展的 tool_call 钩子）：它说不，工具就不执行；
 *   5. 超时：到点就取消这次调用的信号，交出超时结果，循环照常往下走。
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
    const output = (await this.refuse(toolCall, context)) ?? (await this.runGuarded(toolCall, context));
    const result: ToolResultMessage = {
      role: "toolResult",
      toolCallId: toolCall.id,
      toolName: toolCall.name,
      content: output.content,
    };
    if (output.isError) result.isError = true;
    return result;
  }

  /**
   * 执行之前的几道关：工具在不在、参数合不合格，然后问钩子。都过了返回 undefined。
   * 顺序同 Pi：不存在的工具、不合格的参数不交给钩子；钩子说完之后若这一轮已经取消，工具也不开始。
   */
  private async refuse(toolCall: ToolCall, context: ToolContext): Promise<ToolOutput | undefined> {
    const tool = this.tools.get(toolCall.name);
    if (!tool) return { content: `未注册的工具：${toolCall.name}`, isError: true };
    // 扩展注册的工具可能根本没有 parameters：说清楚，而不是在校验里崩掉
    if (typeof tool.parameters !== "object" || tool.parameters === null) {
      return { content: `工具 ${tool.name} 没有 parameters（参数的 JSON Schema），无法校验参数`, isError: true };
    }
    try {
      const problem = validateArguments(tool.parameters, toolCall.arguments);
      if (problem) return { content: `参数不合法：${problem}`, isError: true };
    } catch (error) {
      return { content: `工具 ${tool.name} 出错：${describeError(error)}`, isError: true };
    }
    const reason = await context.beforeToolCall?.(toolCall, context);
    if (reason !== undefined) return { content: reason, isError: true };
    if (context.signal?.aborted) return { content: cancelledMessage(tool.name), isError: true };
    return undefined;
  }

  /**
   * 每次调用一个自己的信号，连着这次回复的信号（Ctrl+C）与一个定时器。
   * 超时：先取消这个信号（理会它的工具会真的停下），立刻交出超时结果。
   * Ctrl+C：信号交到了工具手里（第四个取消点），理会它的工具会在安全的地方停下、如实交回结果
   * （bash 说它结束了整个进程树，write 已经写完就说已写入）；所以再等它 CANCEL_GRACE_MS，
   * 不理会信号的工具（多半是扩展写的）等不来，就交出「被取消」——它迟到的结果直接丢掉。
   */
  private async runGuarded(toolCall: ToolCall, context: ToolContext): Promise<ToolOutput> {
    const guard = guardCall(context.signal, context.timeoutMs);
    try {
      const work = this.run(toolCall, { ...context, signal: guard.signal });
      // run 从不 reject，所以输掉赛跑的那一个不会变成未处理的拒绝
      const output = await Promise.race([work, guard.ended.then(() => (guard.timedOut() ? undefined : briefly(work, CANCEL_GRACE_MS)))]);
      // 看状态而不看谁先到：工具可能正是因为信号被取消才「抢先」返回的
      if (guard.timedOut()) return { content: toolTimeoutMessage(toolCall.name, context.timeoutMs ?? 0), isError: true };
      return output ?? { content: cancelledMessage(toolCall.name), isError: true };
    } finally {
      guard.dispose();
    }
  }

  private async run(toolCall: ToolCall, context: ToolContext): Promise<ToolOutput> {
    const tool = this.tools.get(toolCall.name)!; // refuse 查过它在
    try {
      return checkedOutput(tool.name, await tool.execute(toolCall.arguments, context));
    } catch (error) {
      // 工具响应了 Ctrl+C 而抛出：说成「被取消」，而不是一句 This operation was aborted
      if (context.signal?.aborted) return { content: cancelledMessage(tool.name), isError: true };
      return { content: `工具 ${tool.name} 出错：${describeError(error)}`, isError: true };
    }
  }
}

/** Ctrl+C 之后，最多再等理会信号的工具多久（毫秒）：它们杀掉进程、写完手上那一下，都在几毫秒之内。 */
export const CANCEL_GRACE_MS = 1000;

/** 等 work，最多等 ms 毫秒；等不到就是 undefined。 */
function briefly<T>(work: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const gaveUp = new Promise<undefined>((resolve) => (timer = setTimeout(resolve, ms, undefined)));
  return Promise.race([work, gaveUp]).finally(() => clearTimeout(timer));
}

/** 工具被 Ctrl+C 取消时交给模型的结果。 */
function cancelledMessage(name: string): string {
  return `工具 ${name} 被取消`;
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
