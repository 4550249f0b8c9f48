/**
 * 加载一个扩展，要么全成，要么什么也不留下（第 8.5 章「已知局限」第 1、3 条）。
 * 工厂拿到的不是宿主本身，而是一个暂存注册的 pi：工厂在时限内成功结束，暂存的工具与观察者才一次性装进宿主；
 * 抛错、超时都把暂存的丢掉，之后迟到的注册也一律不要（失败已经报告过了）。
 */

import { refuseNonFunction, withTimeLimit } from "./extension-checks.js";
import type { ExtensionAPI, ExtensionHost } from "./extensions.js";
import type { ToolDefinition } from "./tools/types.js";
import type { HarnessEvent } from "./types.js";

type Handler = (event: HarnessEvent) => void;

/** 用一个暂存注册的 pi 运行 load（import 加上工厂），最多等 timeoutMs；失败就抛出，宿主里什么也没多。 */
export async function loadAllOrNothing(host: ExtensionHost, name: string, timeoutMs: number, load: (pi: ExtensionAPI) => Promise<void>): Promise<void> {
  const pending = { handlers: [] as Handler[], tools: [] as ToolDefinition[] };
  let state: "loading" | "loaded" | "failed" = "loading";
  const pi: ExtensionAPI = {
    onEvent(handler) {
      if (state === "failed") return; // 加载已经失败并报告过：迟到的注册一律不要
      refuseNonFunction(handler);
      if (state === "loaded") host.onEvent(handler, name);
      else pending.handlers.push(handler);
    },
    registerTool(tool) {
      if (state === "failed") return;
      host.checkTool(tool, pending.tools.map((t) => t.name));
      if (state === "loaded") host.registerTool(tool, name);
      else pending.tools.push(tool);
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
  state = "loaded";
}
