/**
 * 扩展宿主：让一个外部 .ts 文件不改核心代码就能观察事件、注册工具，还能拦下一次工具调用。
 *
 * 这里只有四样东西：
 *   - ExtensionAPI / ExtensionFactory：扩展作者看到的接口与形态；
 *   - ExtensionHost：保管观察者与 tool_call 处理函数、把工具写进注册表、派发事件；
 *   - loadExtension：运行时用动态 import() 加载一个扩展文件；
 *   - withExtensions：把循环的事件流先给扩展看一眼，再交给下游。
 *
 * 两条责任边界：观察者抛异常只打印、不上抛（emit）；
 * 扩展加载失败只报告、不退出（调用处在 cli.ts）。写扩展时的常见错误各有一道防线（guards/extensions.ts），这里各是一行调用。
 */

import path from "node:path";
import { pathToFileURL } from "node:url";

import * as guard from "./guards/extensions.js";
import { ToolCallHooks, type ToolCallHandler } from "./tool-call.js";
import type { ToolDefinition, ToolRegistry } from "./tools/types.js";
import type { HarnessEvent } from "./types.js";

/** 扩展工厂拿到的 `pi` 对象。 */
export interface ExtensionAPI {
  /** 注册一个事件观察者。多个扩展的观察者按注册顺序依次调用；也可以是 async 函数。 */
  onEvent(handler: (event: HarnessEvent) => void): void;
  /** 注册一个工具。缺字段或名字与已有工具冲突时会抛错。 */
  registerTool(tool: ToolDefinition): void;
  /** 照 Pi：工具执行之前问一声，返回 { block: true, reason } 就不执行（tool-call.ts）。 */
  on(event: "tool_call", handler: ToolCallHandler): void;
}

/** 扩展的唯一形态：一个默认导出的工厂函数。 */
export type ExtensionFactory = (pi: ExtensionAPI) => void | Promise<void>;

/** ExtensionAPI 的实现。所有扩展共用同一个宿主，也就共用同一个工具注册表。 */
export class ExtensionHost implements ExtensionAPI {
  /** 已加载的扩展文件名，启动横幅会列出它们。 */
  readonly loaded: string[] = [];
  /** 观察者，以及它来自哪个扩展（报错时说出来）。 */
  private readonly handlers: Array<{ handler: (event: HarnessEvent) => void; source: string | undefined }> = [];
  /** tool_call 的处理函数，按加载顺序（tool-call.ts）。 */
  readonly toolCalls = new ToolCallHooks();

  constructor(private readonly tools: ToolRegistry) {}

  onEvent(handler: (event: HarnessEvent) => void, source?: string): void {
    guard.refuseNonFunction(handler); // 否则要到第一个事件才崩
    this.handlers.push({ handler, source });
  }

  on(event: "tool_call", handler: ToolCallHandler, source?: string): void {
    guard.refuseUnknownEvent(event, handler); // Pi 有 41 种事件，这里只有 tool_call：写错了现在就说
    this.toolCalls.add(handler, source);
  }

  registerTool(tool: ToolDefinition, source?: string): void {
    this.checkTool(tool);
    this.tools.register(guard.watchedTool(tool, source)); // 同步跑很久的工具挡住 Ctrl+C：事后说一声
  }

  /** 工具能不能注册：字段齐全、名字没被占用，也不和 alsoTaken（同一个扩展暂存着的）重名。不合格就抛出一句说明。 */
  checkTool(tool: ToolDefinition, alsoTaken: string[] = []): void {
    guard.refuseBadTool(tool, [...this.tools.names(), ...alsoTaken]); // 缺字段的工具要等到模型调用它才崩，离犯错的地方太远
  }

  /**
   * 把一个事件派发给所有观察者。
   * 观察者抛异常、返回被拒绝的 promise，都不能影响宿主——扩展是别人写的代码，它崩了不该拖垮 Agent。
   */
  emit(event: HarnessEvent): void {
    for (const { handler, source } of this.handlers) {
      try {
        const result = guard.reportIfBlocking("观察者", source, () => handler(guard.copyForObserver(event))); // 副本：观察者改了它，宿主看不到
        guard.reportRejection(result, source);
      } catch (error) {
        guard.reportObserverError(error, source);
      }
    }
  }
}

/**
 * 加载一个扩展文件，并用 pi 调用它的工厂函数（pi 见下面的 loadExtension）。
 * import() 的参数是 URL：先转成 file:// URL，Windows 的 C:\ 路径才不会被当成协议名。
 * 模块的形状只能在运行时检查，检查通过后才把默认导出当作 ExtensionFactory。
 * 任何失败都抛出，由调用方决定怎么报告。
 * 宿主用 tsx 运行，所以扩展可以直接写成 .ts 文件，不需要先编译。
 */
async function importAndCall(file: string, pi: ExtensionAPI): Promise<void> {
  const absolute = path.resolve(file);
  const module = (await import(pathToFileURL(absolute).href)) as { default?: unknown };
  const factory = module.default;
  if (typeof factory !== "function") {
    throw new Error(`扩展 ${file} 必须默认导出一个函数`);
  }
  guard.refuseFactoryThatDoesNothing(factory, path.basename(absolute)); // async 生成器、class：调用了也什么都不做
  await (factory as ExtensionFactory)(pi);
}

/** 加载一个扩展：工厂拿到暂存注册的 pi，限时内成功结束，注册的才一次装进宿主；抛错、超时都什么也不留下。 */
export async function loadExtension(file: string, host: ExtensionHost, timeoutMs = guard.EXTENSION_LOAD_TIMEOUT_MS): Promise<void> {
  const name = path.basename(path.resolve(file));
  await guard.allOrNothing(host, name, timeoutMs, (pi) => importAndCall(file, pi));
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
