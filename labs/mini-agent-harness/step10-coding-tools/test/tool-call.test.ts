/**
 * tool_call 钩子：Pi 的形状、加载顺序、第一个阻止者说了算；抛异常也算阻止（fail-safe）；
 * 一直不回答时 Ctrl+C 能结束这一轮，没有终端时到点算阻止。全部在测试进程里：宿主、注册表、Agent 循环都是真的。
 */
import { getEventListeners } from "node:events";
import { afterEach, describe, expect, it, vi } from "vitest";

import { runAgentLoop } from "../src/agent-loop.js";
import { ExtensionHost, loadExtension, type ExtensionAPI } from "../src/extensions.js";
import { NO_UI, TOOL_CALL_LIMIT_MS, type ExtensionContext, type ToolCallEvent, type Ui } from "../src/tool-call.js";
import { ToolRegistry } from "../src/tools/types.js";
import type { AssistantMessage, HarnessEvent, StreamFn, ToolCall } from "../src/types.js";
import { extensionScratch } from "./helpers/extension-scratch.js";
import { useFakeClock } from "./helpers/wait.js";

const { writeExtension } = extensionScratch("harness-tool-call-");
afterEach(() => vi.restoreAllMocks());

/** 一个记下自己被调用了几次的工具。 */
function registryWithProbe(): { tools: ToolRegistry; ran: Array<Record<string, unknown>> } {
  const tools = new ToolRegistry();
  const ran: Array<Record<string, unknown>> = [];
  tools.register({
    name: "probe",
    description: "记下参数",
    parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
    execute: (args) => (ran.push(args), { content: "执行了" }),
  });
  return { tools, ran };
}

/** 在宿主上装几个处理函数（source 是扩展名），返回这次调用的结果。 */
async function callThrough(host: ExtensionHost, tools: ToolRegistry, args: Record<string, unknown> = { path: "a.txt" }, options: { ui?: Ui; signal?: AbortSignal } = {}) {
  const toolCall: ToolCall = { type: "toolCall", id: "call_7", name: "probe", arguments: args };
  return tools.execute(toolCall, { cwd: "/项目", signal: options.signal, beforeToolCall: host.toolCalls.gate(options.ui ?? NO_UI) });
}

describe("形状照 Pi", () => {
  it("event 是 { type, toolCallId, toolName, input }；ctx 有 hasUI、cwd、signal、ui", async () => {
    const { tools } = registryWithProbe();
    const host = new ExtensionHost(tools);
    const seen: Array<[ToolCallEvent, ExtensionContext]> = [];
    host.on("tool_call", (event, ctx) => void seen.push([event, ctx]), "a.ts");
    const controller = new AbortController();
    await callThrough(host, tools, { path: "a.txt" }, { signal: controller.signal });
    const [event, ctx] = seen[0]!;
    expect(event).toEqual({ type: "tool_call", toolCallId: "call_7", toolName: "probe", input: { path: "a.txt" } });
    expect(Object.keys(ctx).sort()).toEqual(["cwd", "hasUI", "signal", "ui"]);
    expect([ctx.hasUI, ctx.cwd, ctx.signal]).toEqual([false, "/项目", controller.signal]);
    expect(Object.keys(ctx.ui).sort()).toEqual(["confirm", "notify", "select"]);
  });

  it("没有终端时的界面：confirm 说不、select 不选（同 Pi 的空界面），notify 打到标准错误", async () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    expect(await NO_UI.ui.confirm("允许吗？", "x")).toBe(false);
    expect(await NO_UI.ui.select("选一个", ["a", "b"])).toBeUndefined();
    NO_UI.ui.notify("你好");
    expect(errors).toHaveBeenCalledWith("[通知] 你好");
  });

  it("改 event.input 不会改工具收到的参数（与 Pi 不同，见 README）", async () => {
    const { tools, ran } = registryWithProbe();
    const host = new ExtensionHost(tools);
    host.on("tool_call", (event) => void (event.input.path = "别处.txt"));
    await callThrough(host, tools);
    expect(ran).toEqual([{ path: "a.txt" }]);
  });
});

describe("谁说了算", () => {
  it("按加载顺序问；第一个 { block: true } 为准，后面的不再问；理由原样交给模型，工具不执行", async () => {
    const { tools, ran } = registryWithProbe();
    const host = new ExtensionHost(tools);
    const asked: string[] = [];
    host.on("tool_call", () => void asked.push("first.ts"), "first.ts");
    host.on("tool_call", () => (asked.push("gate.ts"), { block: true, reason: "门说不行" }), "gate.ts");
    host.on("tool_call", () => (asked.push("last.ts"), { block: true, reason: "轮不到我" }), "last.ts");
    const result = await callThrough(host, tools);
    expect(asked).toEqual(["first.ts", "gate.ts"]);
    expect(result).toEqual({ role: "toolResult", toolCallId: "call_7", toolName: "probe", content: "门说不行", isError: true });
    expect(ran).toEqual([]);
  });

  it("都放行（返回 undefined、{}、{ block: false }）：工具照常执行", async () => {
    const { tools, ran } = registryWithProbe();
    const host = new ExtensionHost(tools);
    host.on("tool_call", () => undefined);
    host.on("tool_call", async () => ({}));
    host.on("tool_call", () => ({ block: false, reason: "不算数" }));
    expect((await callThrough(host, tools)).content).toBe("执行了");
    expect(ran).toHaveLength(1);
  });

  it("block 但没给理由（或理由不是字符串）：一句默认的话，说出是哪个扩展", async () => {
    const { tools } = registryWithProbe();
    for (const answer of [{ block: true }, { block: 1, reason: 42 }]) {
      const host = new ExtensionHost(tools);
      host.on("tool_call", () => answer as never, "quiet.ts");
      expect((await callThrough(host, tools)).content).toBe("扩展 quiet.ts 阻止了这次 probe 调用（没有给出原因）");
    }
  });

  it("不存在的工具、参数不合格的调用：不问钩子（同 Pi）", async () => {
    const { tools } = registryWithProbe();
    const host = new ExtensionHost(tools);
    const asked = vi.fn();
    host.on("tool_call", asked);
    await tools.execute({ type: "toolCall", id: "x", name: "nope", arguments: {} }, { cwd: ".", beforeToolCall: host.toolCalls.gate() });
    expect((await callThrough(host, tools, {})).content).toBe("参数不合法：缺少必填参数 path");
    expect(asked).not.toHaveBeenCalled();
  });
});

describe("处理函数出了错：阻止（fail-safe）", () => {
  it.each([
    ["抛出 Error", () => { throw new Error("门坏了"); }, "门坏了"],
    ["抛出一个字符串", () => { throw "门坏了"; }, "门坏了"],
    ["返回被拒绝的 promise", async () => { throw new Error("门坏了"); }, "门坏了"],
  ])("%s：工具不执行，理由说出扩展名与错误，终端上也打一行", async (_name, handler, message) => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    const { tools, ran } = registryWithProbe();
    const host = new ExtensionHost(tools);
    host.on("tool_call", handler, "broken.ts");
    const result = await callThrough(host, tools);
    expect(result).toMatchObject({ isError: true, content: `扩展 broken.ts 的 tool_call 出错，已阻止这次调用：${message}` });
    expect(ran).toEqual([]);
    expect(errors).toHaveBeenCalledWith(`[扩展错误] tool_call 出错，已阻止这次调用：${message}（扩展 broken.ts）`);
  });
});

describe("处理函数一直不回答", () => {
  const never = (): Promise<never> => new Promise(() => {});

  it("没有终端：等到 TOOL_CALL_LIMIT_MS 算阻止，说清楚为什么", async (test) => {
    useFakeClock(test);
    vi.spyOn(console, "error").mockImplementation(() => {});
    const { tools, ran } = registryWithProbe();
    const host = new ExtensionHost(tools);
    host.on("tool_call", never, "slow.ts");
    const pending = callThrough(host, tools);
    await vi.advanceTimersByTimeAsync(TOOL_CALL_LIMIT_MS);
    expect(await pending).toMatchObject({ isError: true, content: `扩展 slow.ts 的 tool_call ${TOOL_CALL_LIMIT_MS / 1000} 秒内没有回答（没有终端，没人能回答它的问题？），已阻止这次调用` });
    expect(ran).toEqual([]);
  });

  it("有终端：不设时限（人可能正在想），答了就照答的办", async (test) => {
    useFakeClock(test);
    const { tools, ran } = registryWithProbe();
    const host = new ExtensionHost(tools);
    let answer: (value: undefined) => void = () => {};
    host.on("tool_call", () => new Promise((resolve) => (answer = resolve)), "thinking.ts");
    const pending = callThrough(host, tools, undefined, { ui: { ...NO_UI, hasUI: true } });
    await vi.advanceTimersByTimeAsync(10 * TOOL_CALL_LIMIT_MS);
    answer(undefined);
    expect((await pending).content).toBe("执行了");
    expect(ran).toHaveLength(1);
  });

  it("Ctrl+C：不再等它，工具不执行，这一轮以取消收场；signal 上不留监听", async () => {
    const { tools, ran } = registryWithProbe();
    const host = new ExtensionHost(tools);
    const controller = new AbortController();
    host.on("tool_call", () => (setTimeout(() => controller.abort(), 0), never()), "stuck.ts");
    const toolUse: AssistantMessage = { role: "assistant", content: [{ type: "toolCall", id: "c1", name: "probe", arguments: { path: "a" } }], stopReason: "toolUse" };
    const streamFn: StreamFn = async function* () {
      yield { type: "done", message: toolUse };
    };
    const events: HarnessEvent[] = [];
    const context = { messages: [] };
    for await (const event of runAgentLoop({ streamFn, context, tools, toolContext: { cwd: ".", beforeToolCall: host.toolCalls.gate({ ...NO_UI, hasUI: true }) }, signal: controller.signal })) events.push(event);
    expect(ran).toEqual([]);
    expect(events.slice(-3)).toEqual([
      { type: "message", message: { role: "toolResult", toolCallId: "c1", toolName: "probe", content: "这一轮已取消：扩展 stuck.ts 还没回答，工具没有执行", isError: true } },
      { type: "turn_end", turn: 1 },
      { type: "abort" },
    ]);
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });
});

describe("加载：pi.on 只认 tool_call", () => {
  it("从文件加载的扩展：pi.on 注册的处理函数带着文件名", async () => {
    const file = writeExtension("gate.mjs", `export default (pi) => pi.on("tool_call", () => ({ block: true }));\n`);
    const { tools } = registryWithProbe();
    const host = new ExtensionHost(tools);
    await loadExtension(file, host);
    expect((await callThrough(host, tools)).content).toBe("扩展 gate.mjs 阻止了这次 probe 调用（没有给出原因）");
  });

  it.each([
    ["别的事件名", `pi.on("session_start", () => {})`, 'pi.on 只支持 "tool_call"（Pi 还有 session_start 等 40 种事件，这里没有），收到的是 "session_start"'],
    ["处理函数不是函数", `pi.on("tool_call", "我不是函数")`, 'pi.on("tool_call", …) 需要一个函数'],
  ])("%s：加载失败，说清楚，先注册的 tool_call 也不留下", async (_name, call, message) => {
    const file = writeExtension("bad.mjs", `export default (pi) => { pi.on("tool_call", () => ({ block: true })); ${call}; };\n`);
    const { tools } = registryWithProbe();
    const host = new ExtensionHost(tools);
    await expect(loadExtension(file, host)).rejects.toThrow(new Error(message));
    expect((await callThrough(host, tools)).content).toBe("执行了");
  });

  it("ExtensionAPI 的类型里有 on（扩展作者写 pi.on 时有提示）", () => {
    const api: Pick<ExtensionAPI, "on"> = new ExtensionHost(new ToolRegistry());
    expect(typeof api.on).toBe("function");
  });
});
