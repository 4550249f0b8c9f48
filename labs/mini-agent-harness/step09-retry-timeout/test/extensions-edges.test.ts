/**
 * 扩展宿主的边角（变异测试找出来的，见 scripts/mutation/）：onEvent 收到的不是函数时说什么、
 * 复制不了的事件原样交给观察者。只通过公开的 ExtensionHost / loadExtension 测。
 */
import { afterEach, describe, expect, it, vi } from "vitest";

import { ExtensionHost, loadExtension } from "../src/extensions.js";
import { createBuiltinTools } from "../src/tools/index.js";
import type { HarnessEvent } from "../src/types.js";
import { extensionScratch } from "./helpers/extension-scratch.js";

const { writeExtension } = extensionScratch("harness-ext-edges-");
afterEach(() => vi.restoreAllMocks());

describe("扩展宿主的边角", () => {
  it("宿主的 onEvent 收到的不是函数：说清楚要的是函数", () => {
    const host = new ExtensionHost(createBuiltinTools());
    expect(() => host.onEvent(42 as never)).toThrow(new Error("onEvent 需要一个函数"));
  });

  it("扩展的工厂里 pi.onEvent 收到的不是函数：加载失败，说清楚要的是函数，什么也不留下", async () => {
    const file = writeExtension("not-a-function.mjs", `export default (pi) => { pi.onEvent("我不是函数"); };\n`);
    const host = new ExtensionHost(createBuiltinTools());
    await expect(loadExtension(file, host)).rejects.toThrow(new Error("onEvent 需要一个函数"));
    expect(host.loaded).toEqual([]);
  });

  it("复制不了的事件（带着函数）：观察者照样收到，拿到的是原件", () => {
    const host = new ExtensionHost(createBuiltinTools());
    const seen: HarnessEvent[] = [];
    host.onEvent((event) => seen.push(event));
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    const event = { type: "abort", extra: () => "复制不了" } as unknown as HarnessEvent;
    host.emit(event);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toBe(event);
    expect(errors).not.toHaveBeenCalled();
  });

  it("registerTool 收到一个函数而不是对象：拒绝，说要的是对象", () => {
    const host = new ExtensionHost(createBuiltinTools());
    const tool = Object.assign(() => ({ content: "x" }), { description: "d", parameters: { type: "object" }, execute: () => ({ content: "x" }) });
    expect(() => host.registerTool(tool as never)).toThrow(new Error("registerTool 需要一个对象 { name, description, parameters, execute }"));
  });

  it("工具名只有空白：拒绝，说缺少 name", () => {
    const host = new ExtensionHost(createBuiltinTools());
    const tool = { name: "   ", description: "d", parameters: { type: "object" }, execute: () => ({ content: "x" }) };
    expect(() => host.registerTool(tool)).toThrow(new Error("工具缺少 name（非空字符串）"));
  });

  it("parameters 是数组或函数：拒绝，说缺少参数的 JSON Schema 对象", () => {
    const host = new ExtensionHost(createBuiltinTools());
    for (const parameters of [[], () => ({})]) {
      const tool = { name: "t", description: "d", parameters, execute: () => ({ content: "x" }) };
      expect(() => host.registerTool(tool as never)).toThrow(new Error("工具 t 缺少 parameters（参数的 JSON Schema 对象）"));
    }
  });
});
