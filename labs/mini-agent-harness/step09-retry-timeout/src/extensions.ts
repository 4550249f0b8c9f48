/**
 * 扩展宿主：让一个外部 .ts 文件不改核心代码就能观察事件、注册工具。
 *
 * 这里只有四样东西：
 *   - ExtensionAPI / ExtensionFactory：扩展作者看到的接口与形态；
 *   - ExtensionHost：保管观察者、把工具写进注册表、派发事件；
 *   - loadExtension：运行时用动态 import() 加载一个扩展文件；
 *   - withExtensions：把循环的事件流先给扩展看一眼，再交给下游。
 *
 * 两条责任边界：观察者抛异常只打印、不上抛（emit）；
 * 扩展加载失败只报告、不退出（调用处在 main.ts）。
 */

import path from "node:path";
import { pathToFileURL } from "node:url";

import type { ToolDefinition, ToolRegistry } from "./tools/types.js";
import type { HarnessEvent } from "./types.js";

/** 扩展工厂拿到的 `pi` 对象。 */
export interface ExtensionAPI {
  /** 注册一个事件观察者。多个扩展的观察者按注册顺序依次调用。 */
  onEvent(handler: (event: HarnessEvent) => void): void;
  /** 注册一个工具。名字与内置工具冲突时会抛错。 */
  registerTool(tool: ToolDefinition): void;
}

/** 扩展的唯一形态：一个默认导出的工厂函数。 */
export type ExtensionFactory = (pi: ExtensionAPI) => void | Promise<void>;

/** ExtensionAPI 的实现。所有扩展共用同一个宿主，也就共用同一个工具注册表。 */
export class ExtensionHost implements ExtensionAPI {
  /** 已加载的扩展文件名，启动横幅会列出它们。 */
  readonly loaded: string[] = [];
  private readonly handlers: Array<(event: HarnessEvent) => void> = [];

  constructor(private readonly tools: ToolRegistry) {}

  onEvent(handler: (event: HarnessEvent) => void): void {
    this.handlers.push(handler);
  }

  registerTool(tool: ToolDefinition): void {
    this.tools.register(tool);
  }

  /**
   * 把一个事件派发给所有观察者。
   * 观察者抛异常不能影响宿主——扩展是别人写的代码，它崩了不该拖垮 Agent。
   */
  emit(event: HarnessEvent): void {
    for (const handler of this.handlers) {
      try {
        handler(event);
      } catch (error) {
        console.error(`[扩展错误] ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  }
}

/**
 * 加载一个扩展文件，并用宿主调用它的工厂函数。
 * import() 的参数是 URL：先转成 file:// URL，Windows 的 C:\ 路径才不会被当成协议名。
 * 模块的形状只能在运行时检查，检查通过后才把默认导出当作 ExtensionFactory。
 * 任何失败都抛出，由调用方决定怎么报告。
 * 宿主用 tsx 运行，所以扩展可以直接写成 .ts 文件，不需要先编译。
 */
export async function loadExtension(file: string, host: ExtensionHost): Promise<void> {
  const absolute = path.resolve(file);
  const module = (await import(pathToFileURL(absolute).href)) as { default?: unknown };
  const factory = module.default;
  if (typeof factory !== "function") {
    throw new Error(`扩展 ${file} 必须默认导出一个函数`);
  }
  await (factory as ExtensionFactory)(host);
  host.loaded.push(path.basename(absolute));
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
