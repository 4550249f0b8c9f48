/**
 * tool_call 钩子：工具执行之前，先问一遍扩展；有一个说不，这个工具就不执行。
 *
 *   pi.on("tool_call", async (event, ctx) => {
 *     if (event.toolName === "bash" && !(await ctx.ui.confirm("允许运行 bash？", String(event.input.command)))) {
 *       return { block: true, reason: "用户不允许" };
 *     }
 *   });
 *
 * 形状照 Pi 1.6.0（pi-coding-agent 的 src/core/extensions/types.ts：ToolCallEvent、ExtensionContext、ToolCallEventResult），
 * 同一个扩展文件不改一个字就能放进真的 Pi。规矩也照 Pi（runner.ts 的 emitToolCall）：
 *   - 参数合格之后、执行之前问（注册表的 beforeToolCall）；
 *   - 按加载顺序逐个问，第一个返回 { block: true } 的为准，后面的不再问；
 *   - reason 原样成为交给模型的错误结果；
 *   - 处理函数抛异常：也算阻止（Pi 叫 fail-safe）——出了错的闸门不能等于没有闸门。
 * 与 Pi 不同：处理函数迟迟不回答时，Ctrl+C 能让这一轮结束；没有终端时等 TOOL_CALL_LIMIT_MS 就算阻止（guards/tool-call.ts）。
 */

import { answerOf } from "./guards/tool-call.js";
import type { ToolCall } from "./types.js";
import type { ToolContext } from "./tools/types.js";

/** 交给处理函数的事件。input 是参数的副本：改它不会改变工具收到的参数（Pi 会采纳改动，见 README）。 */
export interface ToolCallEvent {
  type: "tool_call";
  toolCallId: string;
  toolName: string;
  input: Record<string, unknown>;
}

/** 处理函数能用的界面。没有终端时 confirm 总说不、select 什么也不选（同 Pi 的空界面）。 */
export interface ExtensionUIContext {
  confirm(title: string, message: string, opts?: { signal?: AbortSignal }): Promise<boolean>;
  select(title: string, options: string[], opts?: { signal?: AbortSignal }): Promise<string | undefined>;
  notify(message: string, type?: "info" | "warning" | "error"): void;
}

export interface ExtensionContext {
  /** 有没有人能回答问题（标准输入是终端）。 */
  hasUI: boolean;
  /** 项目目录：工具的相对路径从这里算。 */
  cwd: string;
  /** 这一轮的取消信号（Ctrl+C）：交给 confirm 之类，问题就能被取消。 */
  signal: AbortSignal | undefined;
  ui: ExtensionUIContext;
}

export interface ToolCallEventResult {
  block?: boolean;
  reason?: string;
}

export type ToolCallHandler = (event: ToolCallEvent, ctx: ExtensionContext) => ToolCallEventResult | void | Promise<ToolCallEventResult | void>;

/** 界面：有没有终端，以及怎么问。 */
export interface Ui {
  hasUI: boolean;
  ui: ExtensionUIContext;
}

/** 没有终端（管道、CI）：问不了任何人。 */
export const NO_UI: Ui = {
  hasUI: false,
  ui: { confirm: async () => false, select: async () => undefined, notify: (message) => console.error(`[通知] ${message}`) },
};

/** 没有终端时，一个处理函数最多等多久（有终端时不限：人可能正在想）。与加载一个扩展的时限一样长。 */
export const TOOL_CALL_LIMIT_MS = 10_000;

/** 全部扩展的 tool_call 处理函数，按加载顺序。 */
export class ToolCallHooks {
  private readonly handlers: Array<{ handler: ToolCallHandler; source: string | undefined }> = [];

  constructor(private readonly limitMs = TOOL_CALL_LIMIT_MS) {}

  add(handler: ToolCallHandler, source?: string): void {
    this.handlers.push({ handler, source });
  }

  /** 交给 ToolContext.beforeToolCall 的函数：用 ui 问。 */
  gate(ui: Ui = NO_UI): NonNullable<ToolContext["beforeToolCall"]> {
    return (toolCall, context) => this.ask(toolCall, { ...ui, cwd: context.cwd, signal: context.signal });
  }

  /** 逐个问；第一个说不的，返回它的理由；都放行，返回 undefined。 */
  async ask(toolCall: ToolCall, ctx: ExtensionContext): Promise<string | undefined> {
    const event: ToolCallEvent = { type: "tool_call", toolCallId: toolCall.id, toolName: toolCall.name, input: structuredClone(toolCall.arguments) };
    for (const { handler, source } of this.handlers) {
      // 抛异常、一直不回答、回答之前按了 Ctrl+C：都在 answerOf 里变成一个「阻止」
      const answer = await answerOf(() => handler(event, ctx), source, ctx.signal, ctx.hasUI ? undefined : this.limitMs);
      if (answer?.block) return answer.reason || `扩展 ${source ?? ""} 阻止了这次 ${toolCall.name} 调用（没有给出原因）`;
    }
    return undefined;
  }
}
