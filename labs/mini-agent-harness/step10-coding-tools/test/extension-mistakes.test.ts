/**
 * 学习者写扩展时最常犯的错误（issue 12 的第 1–7 条）：每一种都变成一句中文，宿主照常往下走，
 * 失败的扩展什么也不留下。step07 是书里的 93 行，这些防线从 step08 起才有（见 step07 README 的「已知局限」）。
 */

import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, describe, expect, it, vi } from "vitest";

import { runAgentLoop } from "../src/agent-loop.js";
import { ExtensionHost, loadExtension, withExtensions } from "../src/extensions.js";
import { renderEvents } from "../src/render.js";
import { createBuiltinTools } from "../src/tools/index.js";
import type { AssistantMessage, HarnessEvent, StreamFn } from "../src/types.js";
import { makeSandbox, removeSandbox, withoutProvider } from "./helpers/cli.js";
import { runCli } from "./helpers/in-process.js";
import { extensionScratch } from "./helpers/extension-scratch.js";

const scratch = extensionScratch("harness-ext-mistakes-");
const { writeExtension } = scratch;
afterEach(() => vi.restoreAllMocks());

const TOOL = `{ name: "later", description: "", parameters: { type: "object" }, execute: () => ({ content: "ok" }) }`;

describe("第 1 条：失败的扩展什么也不留下", () => {
  it("工厂注册了观察者和工具之后抛错：加载失败，工具不在注册表里，观察者收不到事件", async () => {
    const file = writeExtension("half.mjs", `export default (pi) => { pi.onEvent(() => { throw new Error("我不该被调用"); }); pi.registerTool(${TOOL}); throw new Error("工厂崩了"); };\n`);
    const tools = createBuiltinTools();
    const host = new ExtensionHost(tools);
    await expect(loadExtension(file, host)).rejects.toThrow("工厂崩了");
    expect(tools.names()).toEqual(["calc", "read_file", "write", "edit", "bash"]);
    expect(host.loaded).toEqual([]);
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    host.emit({ type: "abort" });
    expect(errors).not.toHaveBeenCalled();
  });

  it("异步工厂注册之后才拒绝：同样什么也不留下", async () => {
    const file = writeExtension("half-async.mjs", `export default async (pi) => { pi.registerTool(${TOOL}); await Promise.resolve(); throw new Error("晚了一步才崩"); };\n`);
    const tools = createBuiltinTools();
    await expect(loadExtension(file, new ExtensionHost(tools))).rejects.toThrow("晚了一步才崩");
    expect(tools.names()).toEqual(["calc", "read_file", "write", "edit", "bash"]);
  });
});

describe("第 2 条：异步观察者的拒绝与同步抛出一样报告", () => {
  it("emit：被拒绝的 promise 打印 [扩展错误] 并说出扩展名", async () => {
    const file = writeExtension("async-crash.mjs", `export default (pi) => pi.onEvent(async () => { throw new Error("异步崩了"); });\n`);
    const host = new ExtensionHost(createBuiltinTools());
    await loadExtension(file, host);
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    host.emit({ type: "abort" });
    await vi.waitFor(() => expect(errors).toHaveBeenCalledWith("[扩展错误] 异步崩了（扩展 async-crash.mjs）"));
  });

  // 命令行上的同一条：和第 4 条合在一个进程里测，见文件后面的「命令行」一节
});

describe("第 3 条：永远不结束的工厂", () => {
  it.each([
    ["没有任何待办的定时器", "export default () => new Promise(() => {});\n"],
    ["定时器在跑、工厂却不 resolve", "export default () => new Promise(() => { setInterval(() => {}, 1000).unref(); });\n"],
    ["模块顶层就在等", "await new Promise(() => {});\nexport default () => {};\n"],
  ])("%s：到点报告，说出文件名，什么也不注册", async (_label, source) => {
    const file = writeExtension("never.mjs", source);
    const tools = createBuiltinTools();
    await expect(loadExtension(file, new ExtensionHost(tools), 50)).rejects.toThrow(/扩展 never\.mjs 的工厂函数 0\.05 秒内没有结束/);
    expect(tools.names()).toEqual(["calc", "read_file", "write", "edit", "bash"]);
  });

  it("超时之后工厂才注册：注册被丢弃", async () => {
    const file = writeExtension("late.mjs", `export let pi;\nexport default (api) => { pi = api; return new Promise(() => {}); };\n`);
    const tools = createBuiltinTools();
    await expect(loadExtension(file, new ExtensionHost(tools), 20)).rejects.toThrow("没有结束");
    const module = (await import(pathToFileURL(file).href)) as { pi: { registerTool(tool: unknown): void } };
    module.pi.registerTool({ name: "later", description: "", parameters: { type: "object" }, execute: () => ({ content: "ok" }) });
    expect(tools.names()).toEqual(["calc", "read_file", "write", "edit", "bash"]);
  });
});

describe("第 4 条：registerTool 在注册时检查工具", () => {
  it.each([
    ["没有 parameters", `{ name: "t", description: "", execute: () => ({ content: "" }) }`, "工具 t 缺少 parameters"],
    ["没有 name", `{ description: "", parameters: {}, execute: () => ({ content: "" }) }`, "工具缺少 name"],
    ["没有 execute", `{ name: "t", description: "", parameters: {} }`, "工具 t 缺少 execute"],
    ["parameters 是字符串", `{ name: "t", description: "", parameters: "x", execute: () => ({ content: "" }) }`, "工具 t 缺少 parameters"],
    ["description 是数字", `{ name: "t", description: 1, parameters: {}, execute: () => ({ content: "" }) }`, "工具 t 缺少 description"],
    ["不是对象", `undefined`, "registerTool 需要一个对象"],
  ])("%s：加载失败并说出缺了什么，什么也不注册", async (_label, tool, message) => {
    const file = writeExtension("bad-tool.mjs", `export default (pi) => pi.registerTool(${tool});\n`);
    const tools = createBuiltinTools();
    await expect(loadExtension(file, new ExtensionHost(tools))).rejects.toThrow(message);
    expect(tools.names()).toEqual(["calc", "read_file", "write", "edit", "bash"]);
  });

  // 命令行上的同一条：见文件后面的「命令行」一节
});

describe("第 5 条：工具返回了不合格的结果", () => {
  it.each([
    ["undefined", "() => undefined", "收到的是 undefined（是不是忘了 return？）"],
    ["一个数字", "() => 42", "收到的是 42"],
    ["content 不是字符串", "() => ({ content: 1 })", '收到的是 {"content":1}'],
    ["被拒绝的 promise", "async () => { throw new Error(\"异步失败\"); }", "工具 t 出错：异步失败"],
  ])("execute 返回%s：变成一条诚实的错误结果", async (_label, execute, message) => {
    const file = writeExtension("bad-result.mjs", `export default (pi) => pi.registerTool({ name: "t", description: "", parameters: {}, execute: ${execute} });\n`);
    const tools = createBuiltinTools();
    await loadExtension(file, new ExtensionHost(tools));
    const result = await tools.execute({ type: "toolCall", id: "1", name: "t", arguments: {} }, { cwd: scratch.dir() });
    expect(result.isError).toBe(true);
    expect(result.content).toContain(message);
    expect(result.content).not.toContain("被取消");
  });
});

describe("第 6 条：观察者改了收到的事件", () => {
  it("把 message.content 设成 null：渲染、上下文与别的观察者都不受影响", async () => {
    const host = new ExtensionHost(createBuiltinTools());
    host.onEvent((event) => {
      if (event.type === "message") (event.message as { content: unknown }).content = null;
    });
    const seen: unknown[] = [];
    host.onEvent((event) => {
      if (event.type === "message") seen.push(event.message.content);
    });
    const message: AssistantMessage = { role: "assistant", content: [{ type: "text", text: "你好" }], stopReason: "stop" };
    async function* events(): AsyncGenerator<HarnessEvent> {
      yield { type: "message", message };
    }
    const written: string[] = [];
    await renderEvents(withExtensions(events(), host), (text) => written.push(text));
    expect(message.content).toEqual([{ type: "text", text: "你好" }]);
    expect(seen).toEqual([[{ type: "text", text: "你好" }]]);
  });
});

describe("第 7 条：永远不结束的工具挡不住 Ctrl+C", () => {
  it("工具不理会信号：取消后循环记一条 被取消 的结果并收场", async () => {
    const tools = createBuiltinTools();
    tools.register({ name: "hang", description: "", parameters: {}, execute: () => new Promise(() => {}) });
    const message: AssistantMessage = { role: "assistant", content: [{ type: "toolCall", id: "c1", name: "hang", arguments: {} }], stopReason: "toolUse" };
    const streamFn: StreamFn = async function* () {
      yield { type: "done", message };
    };
    const controller = new AbortController();
    const context = { messages: [] };
    const seen: HarnessEvent[] = [];
    for await (const event of runAgentLoop({ streamFn, context, tools, toolContext: { cwd: scratch.dir() }, signal: controller.signal })) {
      seen.push(event);
      if (event.type === "tool_call") setImmediate(() => controller.abort());
    }
    expect(seen.map((event) => event.type)).toEqual(["turn_start", "message", "tool_call", "message", "turn_end", "abort"]);
    expect(seen[3]).toMatchObject({ message: { role: "toolResult", toolCallId: "c1", content: "工具 hang 被取消", isError: true } });
  });
});

describe("命令行：第 2 条与第 4 条", () => {
  // 两个坏扩展放进同一个真实 CLI 进程：每起一个进程要花约 0.3 秒 CPU，而两条断言互不干扰
  it.skipIf(withoutProvider)("异步观察者崩了：进程不退出，回复照常完成；工具缺 parameters：报告 加载扩展失败 与缺的字段，其余照常", async () => {
    const sandbox = makeSandbox();
    try {
      fs.writeFileSync(path.join(sandbox, "async-crash.mjs"), `export default (pi) => pi.onEvent(async (event) => { if (event.type === "turn_start") throw new Error("异步崩了"); });\n`);
      fs.writeFileSync(path.join(sandbox, "no-params.mjs"), `export default (pi) => pi.registerTool({ name: "upper", description: "", execute: () => ({ content: "" }) });\n`);
      const args = ["--extension", "async-crash.mjs", "--extension", "no-params.mjs"];
      const result = await runCli(sandbox, args, "我叫小明\n我叫什么\n把 abc 转成大写\n");
      expect(result.code, result.stderr).toBe(0);
      // 第 2 条
      expect(result.stderr).toContain("[扩展错误] 异步崩了（扩展 async-crash.mjs）");
      expect(result.stderr).not.toContain("    at ");
      expect(result.stdout).toContain("你叫小明");
      // 第 4 条
      expect(result.stderr).toContain("加载扩展失败 no-params.mjs：工具 upper 缺少 parameters");
      expect(result.stdout).toContain("未注册的工具：upper（出错）");
    } finally {
      removeSandbox(sandbox);
    }
  });
});
