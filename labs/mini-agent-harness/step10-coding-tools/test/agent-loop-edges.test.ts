/**
 * Agent 循环的边角（变异测试找出来的，见 scripts/mutation/）：maxTurns 正好是 1、
 * 没给 done 时补上的那条消息长什么样、工具的 execute 自己 reject 时（带着取消信号）错误照样交给调用方。
 */
import { getEventListeners } from "node:events";
import { describe, expect, it, onTestFinished, vi } from "vitest";

import { runAgentLoop } from "../src/agent-loop.js";
import { CANCEL_GRACE_MS, ToolRegistry } from "../src/tools/types.js";
import type { AssistantMessage, HarnessEvent, Message, StreamFn } from "../src/types.js";

async function collect(events: AsyncIterable<HarnessEvent>): Promise<HarnessEvent[]> {
  const all: HarnessEvent[] = [];
  for await (const event of events) all.push(event);
  return all;
}

const callEcho: AssistantMessage = {
  role: "assistant",
  content: [{ type: "toolCall", id: "c1", name: "echo", arguments: {} }],
  stopReason: "toolUse",
};
const alwaysCalls: StreamFn = async function* () {
  yield { type: "done", message: callEcho };
};

function echoTools(): ToolRegistry {
  const tools = new ToolRegistry();
  tools.register({ name: "echo", description: "回声", parameters: { type: "object" }, execute: () => ({ content: "回声" }) });
  return tools;
}

describe("runAgentLoop 的边角", () => {
  it("maxTurns 为 1：正好跑一轮，然后以 max_turns 收尾", async () => {
    const events = await collect(
      runAgentLoop({ streamFn: alwaysCalls, context: { messages: [{ role: "user", content: "hi" }] }, tools: echoTools(), toolContext: { cwd: "." }, maxTurns: 1 }),
    );
    expect(events.map((e) => e.type)).toEqual(["turn_start", "message", "tool_call", "message", "turn_end", "max_turns"]);
    expect(events.at(-1)).toEqual({ type: "max_turns", maxTurns: 1 });
  });

  it("模型流没给 done：补上的消息没有内容，错误说明点名缺了 done", async () => {
    const silent: StreamFn = async function* () {};
    const context = { messages: [{ role: "user" as const, content: "hi" }] };
    const events = await collect(runAgentLoop({ streamFn: silent, context, tools: echoTools(), toolContext: { cwd: "." } }));
    const message = { role: "assistant", content: [], stopReason: "error", errorMessage: "模型流没有给出结束事件（done）" };
    expect(events).toEqual([{ type: "turn_start", turn: 1 }, { type: "message", message }, { type: "turn_end", turn: 1 }]);
    expect(context.messages.at(-1)).toEqual(message);
  });

  it("工具注册表的 execute 自己 reject 了（违反契约）：错误交给调用方，信号上不留监听", async () => {
    const tools = echoTools();
    const broken = new Error("注册表坏了");
    tools.execute = () => Promise.reject(broken);
    const controller = new AbortController();
    await expect(
      collect(runAgentLoop({ streamFn: alwaysCalls, context: { messages: [] }, tools, toolContext: { cwd: "." }, signal: controller.signal })),
    ).rejects.toBe(broken);
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });

  it("工具及时完成：信号上同样不留监听", async () => {
    const controller = new AbortController();
    const stopAfterTool: StreamFn = async function* (context) {
      const done = context.messages.some((m) => m.role === "toolResult");
      yield { type: "done", message: done ? { role: "assistant", content: [{ type: "text", text: "好" }], stopReason: "stop" } : callEcho };
    };
    await collect(runAgentLoop({ streamFn: stopAfterTool, context: { messages: [] }, tools: echoTools(), toolContext: { cwd: "." }, signal: controller.signal }));
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });

  it("Ctrl+C 落在模型回复之后、工具开始之前（界面处理那条 message 时）：没有 tool_call，工具不开始，直接收场", async () => {
    const controller = new AbortController();
    const tools = new ToolRegistry();
    let started = 0;
    tools.register({ name: "echo", description: "回声", parameters: { type: "object" }, execute: () => ((started += 1), { content: "回声" }) });
    const context: { messages: Message[] } = { messages: [] };
    const events: HarnessEvent[] = [];
    for await (const event of runAgentLoop({ streamFn: alwaysCalls, context, tools, toolContext: { cwd: "." }, signal: controller.signal })) {
      events.push(event);
      if (event.type === "message" && event.message.role === "assistant") controller.abort();
    }
    expect(events.map((e) => e.type)).toEqual(["turn_start", "message", "abort"]);
    expect(started).toBe(0);
    expect(context.messages.map((m) => m.role)).toEqual(["assistant"]); // 没有补一条「被取消」的工具结果
  });

  it("不理会信号的工具遇上 Ctrl+C：等过 CANCEL_GRACE_MS 记一条被取消的结果，信号上不留监听", async () => {
    vi.useFakeTimers();
    onTestFinished(() => void vi.useRealTimers());
    const controller = new AbortController();
    const tools = new ToolRegistry();
    // 工具开始执行之后才按 Ctrl+C（下一轮事件循环）；它自己永远不结束，也不看信号
    const hang = () => {
      setTimeout(() => controller.abort(), 0);
      return new Promise<never>(() => {});
    };
    tools.register({ name: "echo", description: "永远不结束", parameters: { type: "object" }, execute: hang });
    const events: HarnessEvent[] = [];
    const done = (async () => {
      for await (const event of runAgentLoop({ streamFn: alwaysCalls, context: { messages: [] }, tools, toolContext: { cwd: "." }, signal: controller.signal })) {
        events.push(event);
      }
    })();
    await vi.advanceTimersByTimeAsync(CANCEL_GRACE_MS);
    await done;
    // 工具结果是「被取消」，这一轮照常结束，下一轮开始之前在取消点一收场
    expect(events.slice(-3)).toEqual([
      { type: "message", message: { role: "toolResult", toolCallId: "c1", toolName: "echo", content: "工具 echo 被取消", isError: true } },
      { type: "turn_end", turn: 1 },
      { type: "abort" },
    ]);
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });
});
