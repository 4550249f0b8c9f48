/**
 * 扩展宿主：让一个外部 .ts 文件不改核心代码就能观察事件、注册工具。
 *
 * 这里只有四样东西：
 *   - ExtensionAPI / ExtensionFactory：扩展作者看到的接口与形态；
 *   - ExtensionHost：保管观察者、把工具写进注册表、派发事件；
 *   - loadExtension：运行时用动态 import() 加载一个扩展文件；
 *   - withExtensions：把循环的事件流先给扩展看一眼，再交给下游。
 *
 * 责任边界：扩展的错误只报告、不上抛，宿主照常往下走。step07 是书里讲解的 93 行；从 step08 起补上了
 * 学习者写扩展时最常犯的几种错误（第 8.5 章「写扩展时常见的错误」）：工厂抛错时什么也不留（注册先暂存）、
 * 工厂永不结束时到点报告、工具缺字段时注册即拒绝、异步观察者的拒绝照样报告、观察者只拿到事件的副本。
 */

import path from "node:path";
import { pathToFileURL } from "node:url";

import { describeError } from "./describe-error.js";
import { copyForObserver, EXTENSION_LOAD_TIMEOUT_MS, toolProblem, withTimeLimit } from "./extension-checks.js";
import { visible } from "./render.js";
import type { ToolDefinition, ToolRegistry } from "./tools/types.js";
import type { HarnessEvent } from "./types.js";

/** 扩展工厂拿到的 `pi` 对象。 */
export interface ExtensionAPI {
  /** 注册一个事件观察者。多个扩展的观察者按注册顺序依次调用；也可以是 async 函数。 */
  onEvent(handler: (event: HarnessEvent) => void): void;
  /** 注册一个工具。缺字段或名字与已有工具冲突时会抛错。 */
  registerTool(tool: ToolDefinition): void;
}

/** 扩展的唯一形态：一个默认导出的工厂函数。 */
export type ExtensionFactory = (pi: ExtensionAPI) => void | Promise<void>;

type Handler = (event: HarnessEvent) => void;

/** 一个观察者，以及它来自哪个扩展（报错时说出来）。 */
interface Observer {
  handler: Handler;
  source?: string;
}

/** ExtensionAPI 的实现。所有扩展共用同一个宿主，也就共用同一个工具注册表。 */
export class ExtensionHost implements ExtensionAPI {
  /** 已加载的扩展文件名，启动横幅会列出它们。 */
  readonly loaded: string[] = [];
  private readonly observers: Observer[] = [];

  constructor(private readonly tools: ToolRegistry) {}

  onEvent(handler: Handler): void {
    this.addObserver(handler);
  }

  registerTool(tool: ToolDefinition): void {
    this.checkTool(tool);
    this.tools.register(tool);
  }

  /** 检查一个工具能不能注册：字段齐全、名字没被占用。不合格就抛出一句说明。 */
  checkTool(tool: ToolDefinition, alsoTaken: string[] = []): void {
    const problem = toolProblem(tool);
    if (problem) throw new Error(problem);
    if (this.tools.names().includes(tool.name) || alsoTaken.includes(tool.name)) throw new Error(`工具名重复：${tool.name}`);
  }

  addObserver(handler: Handler, source?: string): void {
    if (typeof handler !== "function") throw new Error("onEvent 需要一个函数");
    this.observers.push(source === undefined ? { handler } : { handler, source });
  }

  /**
   * 把一个事件派发给所有观察者。
   * 观察者抛异常、返回被拒绝的 promise，都不能影响宿主——扩展是别人写的代码，它崩了不该拖垮 Agent。
   * 每个观察者拿到自己的一份副本：它改了事件，宿主和别的观察者都看不到。
   */
  emit(event: HarnessEvent): void {
    for (const { handler, source } of this.observers) {
      try {
        const result: unknown = handler(copyForObserver(event));
        // 异步观察者不等它（观察者只看不改），但它的失败同样要报告，不能变成未处理的拒绝让进程退出
        if (result instanceof Promise) result.catch((error: unknown) => reportObserverError(error, source));
      } catch (error) {
        reportObserverError(error, source);
      }
    }
  }
}

/** 观察者出错：一行 [扩展错误]；知道是哪个扩展就一起说出来。 */
function reportObserverError(error: unknown, source: string | undefined): void {
  console.error(visible(`[扩展错误] ${describeError(error)}${source ? `（扩展 ${source}）` : ""}`));
}

/**
 * 加载一个扩展文件，并用宿主调用它的工厂函数。
 * import() 的参数是 URL：先转成 file:// URL，Windows 的 C:\ 路径才不会被当成协议名。
 * 工厂函数拿到的不是宿主本身，而是一个暂存注册的 `pi`：工厂成功才一次性装进宿主，
 * 抛错、超时都什么也不留下。任何失败都抛出，由调用方决定怎么报告。
 * 宿主用 tsx 运行，所以扩展可以直接写成 .ts 文件，不需要先编译。
 */
export async function loadExtension(file: string, host: ExtensionHost, timeoutMs = EXTENSION_LOAD_TIMEOUT_MS): Promise<void> {
  const absolute = path.resolve(file);
  const name = path.basename(absolute);
  const pending = { handlers: [] as Handler[], tools: [] as ToolDefinition[] };
  let state: "loading" | "loaded" | "failed" = "loading";
  const pi: ExtensionAPI = {
    onEvent(handler) {
      if (state === "failed") return; // 加载已经失败并报告过：迟到的注册一律不要
      if (typeof handler !== "function") throw new Error("onEvent 需要一个函数");
      if (state === "loaded") host.addObserver(handler, name);
      else pending.handlers.push(handler);
    },
    registerTool(tool) {
      if (state === "failed") return;
      host.checkTool(tool, pending.tools.map((t) => t.name));
      if (state === "loaded") host.registerTool(tool);
      else pending.tools.push(tool);
    },
  };
  const load = async (): Promise<void> => {
    const module = (await import(pathToFileURL(absolute).href)) as { default?: unknown };
    const factory = module.default;
    if (typeof factory !== "function") {
      throw new Error(`扩展 ${file} 必须默认导出一个函数`);
    }
    await (factory as ExtensionFactory)(pi);
  };
  try {
    await withTimeLimit(load(), timeoutMs, `扩展 ${name} 的工厂函数 ${timeoutMs / 1000} 秒内没有结束（是不是在等一个永远不会来的事件？）`);
  } catch (error) {
    state = "failed";
    throw error;
  }
  // 工厂成功：暂存的工具与观察者一起装进宿主
  for (const tool of pending.tools) host.registerTool(tool);
  for (const handler of pending.handlers) host.addObserver(handler, name);
  state = "loaded";
  host.loaded.push(name);
}

/**
 * 事件流的中间件：每个事件先交给扩展观察，再原样交给下游。
 * 下游（渲染层）不知道扩展存在，扩展也不知道渲染层存在，两边只认 HarnessEvent。
 * 顺序是先扩展后渲染：扩展打印的行出现在渲染层同一事件的输出之前。
 */
export async function* withExtensions(
  events: AsyncIterable<HarnessEvent>,
  host: ExtensionHost,
): AsyncGenerator<HarnessEvent> {
  for await (const event of events) {
    host.emit(event);
    yield event;
  }
}
