/**
 * 扩展宿主的边角（变异测试找出来的，见 scripts/mutation/）：onEvent 收到的不是函数时说什么、
 * 复制不了的事件原样交给观察者。只通过公开的 ExtensionHost / loadExtension 测。
 */
import { afterEach, describe, expect, it, vi } from "vitest";

import { toolProblem, withTimeLimit } from "../src/guards/extensions.js";
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
    const tool = `{ name: "early", description: "d", parameters: { type: "object" }, execute: () => ({ content: "x" }) }`;
    const file = writeExtension("not-a-function.mjs", `export default (pi) => { pi.registerTool(${tool}); pi.onEvent("我不是函数"); };\n`);
    const tools = createBuiltinTools();
    const host = new ExtensionHost(tools);
    await expect(loadExtension(file, host)).rejects.toThrow(new Error("onEvent 需要一个函数"));
    expect(host.loaded).toEqual([]);
    expect(tools.names()).toEqual(["calc", "read_file", "write", "edit", "bash"]); // 在它之前注册的工具也没留下
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

  it("registerTool(null)：拒绝，说要的是对象", () => {
    const host = new ExtensionHost(createBuiltinTools());
    expect(() => host.registerTool(null as never)).toThrow(new Error("registerTool 需要一个对象 { name, description, parameters, execute }"));
  });

  it("工具名只有空白：拒绝，说缺少 name", () => {
    const host = new ExtensionHost(createBuiltinTools());
    const tool = { name: "   ", description: "d", parameters: { type: "object" }, execute: () => ({ content: "x" }) };
    expect(() => host.registerTool(tool)).toThrow(new Error("工具缺少 name（非空字符串）"));
  });

  it("parameters 是数组、函数或 null：拒绝，说缺少参数的 JSON Schema 对象", () => {
    const host = new ExtensionHost(createBuiltinTools());
    for (const parameters of [[], () => ({}), null]) {
      const tool = { name: "t", description: "d", parameters, execute: () => ({ content: "x" }) };
      expect(() => host.registerTool(tool as never)).toThrow(new Error("工具 t 缺少 parameters（参数的 JSON Schema 对象）"));
    }
  });

  it("加载成功之后才注册（比如在事件里）：工具与观察者直接进宿主", async () => {
    const key = `pi-${Math.random()}`;
    const file = writeExtension("late.mjs", `export default (pi) => { globalThis[${JSON.stringify(key)}] = pi; };\n`);
    const tools = createBuiltinTools();
    const host = new ExtensionHost(tools);
    await loadExtension(file, host);
    const pi = (globalThis as Record<string, unknown>)[key] as import("../src/extensions.js").ExtensionAPI;
    delete (globalThis as Record<string, unknown>)[key];
    pi.registerTool({ name: "later", description: "d", parameters: { type: "object" }, execute: () => ({ content: "x" }) });
    const seen: HarnessEvent[] = [];
    pi.onEvent((event) => seen.push(event));
    expect(tools.names()).toEqual(["calc", "read_file", "write", "edit", "bash", "later"]);
    host.emit({ type: "abort" });
    expect(seen).toEqual([{ type: "abort" }]);
    expect(() => pi.registerTool({ name: "later", description: "d", parameters: { type: "object" }, execute: () => ({ content: "x" }) })).toThrow("工具名重复：later");
  });

  it("加载失败之后才注册：一律丢掉，连不合格的东西也不再报错", async () => {
    const key = `pi-${Math.random()}`;
    const file = writeExtension("failed.mjs", `export default (pi) => { globalThis[${JSON.stringify(key)}] = pi; throw new Error("工厂崩了"); };\n`);
    const tools = createBuiltinTools();
    const host = new ExtensionHost(tools);
    await expect(loadExtension(file, host)).rejects.toThrow("工厂崩了");
    const pi = (globalThis as Record<string, unknown>)[key] as import("../src/extensions.js").ExtensionAPI;
    delete (globalThis as Record<string, unknown>)[key];
    expect(() => pi.onEvent("不是函数" as never)).not.toThrow();
    expect(() => pi.registerTool({} as never)).not.toThrow();
    pi.registerTool({ name: "ghost", description: "d", parameters: { type: "object" }, execute: () => ({ content: "x" }) });
    expect(tools.names()).toEqual(["calc", "read_file", "write", "edit", "bash"]);
  });

  it("同一个工厂里注册两个同名工具：第二个就报重复，加载失败，一个也不留", async () => {
    const tool = `{ name: "twin", description: "d", parameters: { type: "object" }, execute: () => ({ content: "x" }) }`;
    const file = writeExtension("twins.mjs", `export default (pi) => { pi.registerTool(${tool}); pi.registerTool(${tool}); };\n`);
    const tools = createBuiltinTools();
    await expect(loadExtension(file, new ExtensionHost(tools))).rejects.toThrow("工具名重复：twin");
    expect(tools.names()).toEqual(["calc", "read_file", "write", "edit", "bash"]);
  });

  it("withTimeLimit：及时完成时把计时器清掉，不拖住进程", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    try {
      await expect(withTimeLimit(Promise.resolve("好"), 10_000, "超时了")).resolves.toBe("好");
      expect(vi.getTimerCount()).toBe(0);
      await expect(withTimeLimit(Promise.reject(new Error("坏了")), 10_000, "超时了")).rejects.toThrow("坏了");
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it.each([
    ["连续几个不合规矩的字符只换成一个 _", "a  b", "a_b"],
    ["开头几个 _ 全去掉", "_ a", "a"],
    ["结尾几个 _ 全去掉", "a _", "a"],
    ["超过 64 个字符：建议的名字截到 64 个", `${"a".repeat(70)} `, "a".repeat(64)],
    ["一个能用的字符也没有", "工具", "my_tool"],
  ])("toolProblem 建议的 ASCII 名字：%s", (_label, name, suggestion) => {
    const problem = toolProblem({ name, description: "", parameters: { type: "object" }, execute: () => ({ content: "" }) });
    expect(problem).toBe(`工具名 ${JSON.stringify(name)} 不合规矩：模型服务只认 ^[a-zA-Z0-9_-]{1,64}$（英文字母、数字、_ 与 -，最多 64 个），请换一个 ASCII 名字，比如 ${suggestion}`);
  });
});
