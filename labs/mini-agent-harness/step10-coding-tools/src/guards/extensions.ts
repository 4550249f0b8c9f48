/**
 * 扩展宿主的防线：扩展是学习者自己写的代码，常见的错误要变成一句中文，而不是一段堆栈或一个卡住的进程。
 * 书里的 93 行宿主（step07）有意省掉了它们，列在那一步的「已知局限」里；extensions.ts 里每处只调用一行。
 */

import type readline from "node:readline";

import type { ToolCallHandler } from "../tool-call.js";
import type { ToolDefinition } from "../tools/types.js";
import type { HarnessEvent } from "../types.js";
import { isRecord } from "./json.js";
import { describeError, tryOr, visible } from "./shown.js";

export const EXTENSION_LOAD_TIMEOUT_MS = 10_000;

/** 工具名取各家里最严的规矩（OpenAI；Anthropic 放宽到 128 个字符，出处见 docs/8.6）：中文名、空格、点号会让每一轮请求以 HTTP 400 失败。 */
export const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** registerTool 收到的工具缺了什么；合格返回 undefined。不在这里拦下，要等到模型第一次调用它才崩，离犯错的地方太远。 */
export function toolProblem(tool: unknown): string | undefined {
  if (!isRecord(tool)) return "registerTool 需要一个对象 { name, description, parameters, execute }";
  if (typeof tool.name !== "string" || tool.name.trim() === "") return "工具缺少 name（非空字符串）";
  if (!TOOL_NAME.test(tool.name)) {
    const ascii = tool.name.replace(/[^a-zA-Z0-9_-]+/g, "_").replace(/^_+|_+$/g, "").slice(0, 64) || "my_tool";
    return `工具名 ${JSON.stringify(tool.name)} 不合规矩：模型服务只认 ${TOOL_NAME.source}（英文字母、数字、_ 与 -，最多 64 个），请换一个 ASCII 名字，比如 ${ascii}`;
  }
  if (typeof tool.description !== "string") return `工具 ${tool.name} 缺少 description（字符串）`;
  if (!isRecord(tool.parameters)) return `工具 ${tool.name} 缺少 parameters（参数的 JSON Schema 对象）`;
  try {
    JSON.stringify(tool.parameters); // 循环引用、BigInt、会抛错的 toJSON 或 getter 都在这里抛
  } catch (error) {
    const why = describeError(error);
    const said = /circular/i.test(why) ? "循环引用" : /BigInt/.test(why) ? "含有 BigInt" : why;
    return `工具 ${tool.name} 的 parameters 转不成 JSON（${said}）：它要随每一轮请求发给模型服务，每一轮都会失败`;
  }
  if (typeof tool.execute !== "function") return `工具 ${tool.name} 缺少 execute（函数）`;
  return undefined;
}

/** 工具不合格（缺字段、名字不合规矩）或名字已被 taken 占用：抛出一句说明。 */
export function refuseBadTool(tool: unknown, taken: string[]): void {
  const problem = toolProblem(tool);
  if (problem) throw new Error(problem);
  const { name } = tool as { name: string };
  if (taken.includes(name)) throw new Error(`工具名重复：${name}`);
}

/** onEvent 收到的不是函数：现在就说，而不是等第一个事件到来时在 emit 里崩。 */
export function refuseNonFunction(handler: unknown): void {
  if (typeof handler !== "function") throw new Error("onEvent 需要一个函数");
}

/** pi.on 只认 "tool_call"，处理函数必须是函数：加载时就说，而不是等第一次工具调用。 */
export function refuseUnknownEvent(event: unknown, handler: unknown): void {
  if (event !== "tool_call") throw new Error(`pi.on 只支持 "tool_call"（Pi 还有 session_start 等 40 种事件，这里没有），收到的是 ${JSON.stringify(String(event))}`);
  if (typeof handler !== "function") throw new Error('pi.on("tool_call", …) 需要一个函数');
}

/** 默认导出是函数，调用了却什么也不做（async 生成器、生成器函数只返回一个生成器；class 不能不带 new 调用）：加载时就说清楚。 */
export function refuseFactoryThatDoesNothing(factory: unknown, name: string): void {
  const tag = Object.prototype.toString.call(factory);
  const kind = tag === "[object AsyncGeneratorFunction]" ? "一个 async 生成器函数"
    : tag === "[object GeneratorFunction]" ? "一个生成器函数"
    : /^class\b/.test(Function.prototype.toString.call(factory)) ? "一个 class" : undefined;
  if (kind) throw new Error(`扩展 ${name} 默认导出的是${kind}，调用它不会运行你写的代码。请默认导出一个普通函数（可以是 async）：export default (pi) => { … }`);
}

export const BLOCKING_REPORT_MS = 1000;

/** 扩展的代码同步占住进程太久就事后说一声：JavaScript 打断不了同步代码，那段时间里 Ctrl+C 也没有反应。 */
export function reportIfBlocking<T>(what: string, source: string | undefined, run: () => T): T {
  const started = performance.now();
  try {
    return run();
  } finally {
    const ms = performance.now() - started;
    if (ms >= BLOCKING_REPORT_MS) {
      console.error(visible(`[警告] ${what}${source ? `（扩展 ${source}）` : ""}同步运行了 ${(ms / 1000).toFixed(1)} 秒：这段时间里进程什么也做不了，Ctrl+C 也要等它结束才有反应。耗时的活请写成异步的（await），或交给子进程`));
    }
  }
}

export function watchedTool(tool: ToolDefinition, source: string | undefined): ToolDefinition {
  const { name, description, parameters } = tool;
  return { name, description, parameters, execute: (args, context) => reportIfBlocking(`工具 ${name}`, source, () => tool.execute(args, context)) };
}

export function reportObserverError(error: unknown, source: string | undefined): void {
  console.error(visible(`[扩展错误] ${describeError(error)}${source ? `（扩展 ${source}）` : ""}`));
}

/** 异步观察者不等它（观察者只看不改），但它的失败同样要报告，不能变成让进程退出的未处理拒绝。 */
export function reportRejection(result: unknown, source: string | undefined): void {
  if (result instanceof Promise) result.catch((error: unknown) => reportObserverError(error, source));
}

/** 交给观察者的事件副本：观察者改了它（比如把 message.content 设成 null），上下文、会话文件、渲染都不受影响。 */
export function copyForObserver<T>(event: T): T {
  return tryOr(event, () => structuredClone(event)); // 复制不了的事件（带着函数）：原样交出
}

/** 最多等 ms 毫秒。定时器不 unref：工厂等着永远不来的事件时，正是它让进程活到报告出来（否则 Node 以退出码 13 悄悄结束）。 */
export function withTimeLimit<T>(work: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  return Promise.race([work, expired]).finally(() => clearTimeout(timer));
}

type Handler = (event: HarnessEvent) => void;

/** 宿主（extensions.ts 的 ExtensionHost）里暂存要用到的四个方法；写在这里，两个文件就不必互相引用。 */
interface Host {
  onEvent(handler: Handler, source?: string): void;
  registerTool(tool: ToolDefinition, source?: string): void;
  on(event: "tool_call", handler: ToolCallHandler, source?: string): void;
  checkTool(tool: ToolDefinition, alsoTaken: string[]): void;
}

/** 加载一个扩展，要么全成，要么什么也不留下：工厂拿到暂存注册的 pi，限时内成功结束，暂存的才一次装进宿主。 */
export async function allOrNothing(host: Host, name: string, timeoutMs: number, load: (pi: Pick<Host, "onEvent" | "registerTool" | "on">) => Promise<void>): Promise<void> {
  const pending = { handlers: [] as Handler[], tools: [] as ToolDefinition[], toolCalls: [] as ToolCallHandler[] };
  let state: "loading" | "loaded" | "failed" = "loading";
  const pi = {
    onEvent(handler: Handler) {
      if (state === "failed") return; // 加载已经失败并报告过：迟到的注册一律不要
      refuseNonFunction(handler);
      if (state === "loaded") host.onEvent(handler, name);
      else pending.handlers.push(handler);
    },
    registerTool(tool: ToolDefinition) {
      if (state === "failed") return;
      host.checkTool(tool, pending.tools.map((t) => t.name));
      if (state === "loaded") host.registerTool(tool, name);
      else pending.tools.push(tool);
    },
    on(event: "tool_call", handler: ToolCallHandler) {
      if (state === "failed") return;
      refuseUnknownEvent(event, handler);
      if (state === "loaded") host.on(event, handler, name);
      else pending.toolCalls.push(handler);
    },
  };
  try {
    await withTimeLimit(load(pi), timeoutMs, `扩展 ${name} 的工厂函数 ${timeoutMs / 1000} 秒内没有结束（是不是在等一个永远不会来的事件？）`);
  } catch (error) {
    state = "failed";
    throw error;
  }
  for (const tool of pending.tools) host.registerTool(tool, name);
  for (const handler of pending.handlers) host.onEvent(handler, name);
  for (const handler of pending.toolCalls) host.on("tool_call", handler, name);
  state = "loaded";
}

/** 扩展调用了 process.stdin.destroy()：readline 等不到 'end'，提示符会永远挂着。说一句，像 Ctrl+D 一样结束输入。 */
export function endInputIfStdinDestroyed(rl: readline.Interface, input: NodeJS.ReadableStream & { destroyed: boolean; readableEnded: boolean } = process.stdin): void {
  const closed = (): void => {
    if (input.readableEnded) return; // 正常读完（Ctrl+D、管道读完）：readline 自己会收场
    console.error("[警告] 标准输入被关掉了（是不是哪个扩展调用了 process.stdin.destroy()？）：像 Ctrl+D 一样结束输入。");
    rl.close();
  };
  if (input.destroyed) closed();
  else input.once("close", closed);
}
