import { describe, expect, it, onTestFinished, vi } from "vitest";

import { runAgentLoop } from "../src/agent-loop.js";
import { createFakeModel } from "../src/fake-model.js";
import { CANCEL_GRACE_MS, ToolRegistry } from "../src/tools/types.js";
import { createBuiltinTools } from "../src/tools/index.js";
import type { AssistantMessage, Context, HarnessEvent, StreamFn, ToolCall } from "../src/types.js";

async function collect(events: AsyncIterable<HarnessEvent>): Promise<HarnessEvent[]> {
  const all: HarnessEvent[] = [];
  for await (const event of events) all.push(event);
  return all;
}

const userSays = (text: string): Context => ({ messages: [{ role: "user", content: text }] });
const toolContext = { cwd: process.cwd() };

/** 一个按顺序给出预定回复的模型；记录它被调用了几次。 */
function scripted(...replies: AssistantMessage[]): StreamFn & { calls: number } {
  const fn = Object.assign(
    async function* () {
      const reply = replies[fn.calls++];
      if (!reply) throw new Error("剧本用完了");
      yield { type: "done" as const, message: reply };
    },
    { calls: 0 },
  );
  return fn;
}

const call = (id: string, name: string, args: Record<string, unknown> = {}): ToolCall => ({ type: "toolCall", id, name, arguments: args });
const toolUse = (...calls: ToolCall[]): AssistantMessage => ({ role: "assistant", content: calls, stopReason: "toolUse" });
const stop = (text: string): AssistantMessage => ({ role: "assistant", content: [{ type: "text", text }], stopReason: "stop" });

describe("runAgentLoop", () => {
  it("工具结果回到上下文，循环继续，直到模型不再调用工具", async () => {
    const context = userSays("帮我算 17*38");
    const events = await collect(runAgentLoop({ streamFn: createFakeModel(), context, tools: createBuiltinTools(), toolContext }));
    // 连续的 text_delta 合并成一个，只看事件的骨架。
    const skeleton = events.map((e) => e.type).filter((type, i, all) => type !== "text_delta" || all[i - 1] !== "text_delta");
    expect(skeleton).toEqual([
      "turn_start", "text_delta", "message", "tool_call", "message", "turn_end",
      "turn_start", "text_delta", "message", "turn_end",
    ]);
    expect(context.messages.map((m) => m.role)).toEqual(["user", "assistant", "toolResult", "assistant"]);
    expect(context.messages[2]).toMatchObject({ role: "toolResult", toolName: "calc", content: "646" });
    expect(context.messages[3]).toMatchObject({ content: [{ type: "text", text: "结果是 646。" }] });
    expect(events.filter((e) => e.type === "turn_end")).toHaveLength(2);
  });

  it("每条进入上下文的消息都以 message 事件产出一次", async () => {
    const context = userSays("帮我算 1+1");
    const events = await collect(runAgentLoop({ streamFn: createFakeModel(), context, tools: createBuiltinTools(), toolContext }));
    const produced = events.flatMap((e) => (e.type === "message" ? [e.message] : []));
    expect(produced).toEqual(context.messages.slice(1));
  });

  it("工具说明随上下文交给模型", async () => {
    const context = userSays("你好");
    await collect(runAgentLoop({ streamFn: createFakeModel(), context, tools: createBuiltinTools(), toolContext }));
    expect(context.tools?.map((t) => t.name)).toEqual(["calc", "read_file", "write", "edit", "bash"]);
  });

  it("未注册的工具变成错误结果，循环照常往下走", async () => {
    const context = userSays("把 abc 转成大写");
    await collect(runAgentLoop({ streamFn: createFakeModel(), context, tools: createBuiltinTools(), toolContext }));
    expect(context.messages[2]).toMatchObject({ role: "toolResult", content: "未注册的工具：upper", isError: true });
    expect(context.messages).toHaveLength(4);
  });

  it("模型出错：这一轮结束，不执行工具，不抛异常", async () => {
    const failed: AssistantMessage = { role: "assistant", content: [call("c1", "calc", { expression: "1" })], stopReason: "error", errorMessage: "坏了" };
    const context = userSays("x");
    const events = await collect(runAgentLoop({ streamFn: scripted(failed), context, tools: createBuiltinTools(), toolContext }));
    expect(events.map((e) => e.type)).toEqual(["turn_start", "message", "turn_end"]);
    expect(context.messages.at(-1)).toBe(failed);
  });

  it("模型流没给 done 就结束：补一条 error 消息", async () => {
    const empty: StreamFn = async function* () {};
    const context = userSays("x");
    await collect(runAgentLoop({ streamFn: empty, context, tools: createBuiltinTools(), toolContext }));
    expect(context.messages.at(-1)).toMatchObject({ stopReason: "error", errorMessage: "模型流没有给出结束事件（done）" });
  });

  it("maxTurns 用完时以 max_turns 收尾", async () => {
    const forever = scripted(toolUse(call("1", "calc", { expression: "1" })), toolUse(call("2", "calc", { expression: "2" })));
    const events = await collect(runAgentLoop({ streamFn: forever, context: userSays("x"), tools: createBuiltinTools(), toolContext, maxTurns: 2 }));
    expect(events.at(-1)).toEqual({ type: "max_turns", maxTurns: 2 });
  });

  it("maxTurns 不是正整数：调用方的错误，直接抛出", async () => {
    const loop = runAgentLoop({ streamFn: scripted(), context: userSays("x"), tools: createBuiltinTools(), toolContext, maxTurns: 0 });
    await expect(collect(loop)).rejects.toThrow("maxTurns 必须是正整数");
  });
});

describe("四个取消点", () => {
  it("取消点一：开始新一轮之前已经取消，就不再调用模型", async () => {
    const controller = new AbortController();
    controller.abort();
    const model = scripted(stop("不该出现"));
    const events = await collect(runAgentLoop({ streamFn: model, context: userSays("x"), tools: createBuiltinTools(), toolContext, signal: controller.signal }));
    expect(events).toEqual([{ type: "abort" }]);
    expect(model.calls).toBe(0);
  });

  it("取消点二：被取消的半截消息先进上下文，再以 abort 结束，不执行工具", async () => {
    const partial: AssistantMessage = { role: "assistant", content: [{ type: "text", text: "这是" }, call("c1", "calc", { expression: "1" })], stopReason: "aborted" };
    const context = userSays("x");
    const events = await collect(runAgentLoop({ streamFn: scripted(partial), context, tools: createBuiltinTools(), toolContext }));
    expect(events.map((e) => e.type)).toEqual(["turn_start", "message", "abort"]);
    expect(context.messages.at(-1)).toBe(partial);
  });

  it("取消点三：工具与工具之间检查；后面的工具不再开始", async () => {
    const controller = new AbortController();
    const tools = new ToolRegistry();
    const ran: string[] = [];
    tools.register({
      name: "quick",
      description: "执行完才按下取消",
      parameters: { type: "object", properties: {} },
      execute() {
        ran.push("quick");
        controller.abort(); // 取消发生在这个工具里；它同步地交出了结果
        return { content: "跑完了" };
      },
    });
    tools.register({ name: "next", description: "不该执行", parameters: { type: "object", properties: {} }, execute: () => (ran.push("next"), { content: "x" }) });
    const context = userSays("x");
    const model = scripted(toolUse(call("1", "quick"), call("2", "next")));
    const events = await collect(runAgentLoop({ streamFn: model, context, tools, toolContext, signal: controller.signal }));
    expect(ran).toEqual(["quick"]);
    expect(events.at(-1)).toEqual({ type: "abort" });
    expect(model.calls).toBe(1);
  });

  it("第四个取消点在工具里面：循环把这一轮的 signal 交给工具，等它如实交回自己的结果（而不是一句「被取消」）", async () => {
    const controller = new AbortController();
    const tools = new ToolRegistry();
    tools.register({
      name: "steps",
      description: "收到取消就停在当前这一步",
      parameters: { type: "object", properties: {} },
      execute: (_args, context) =>
        new Promise((resolve) => {
          context.signal?.addEventListener("abort", () => resolve({ content: "做完了第 1 步，第 2 步没做", isError: true }));
          controller.abort(); // 工具开始之后按下 Ctrl+C
        }),
    });
    const context = userSays("x");
    // toolContext 里没有 signal：工具拿到的是循环自己的那一个
    const events = await collect(runAgentLoop({ streamFn: scripted(toolUse(call("1", "steps"))), context, tools, toolContext, signal: controller.signal }));
    expect(context.messages.at(-1)).toEqual({ role: "toolResult", toolCallId: "1", toolName: "steps", content: "做完了第 1 步，第 2 步没做", isError: true });
    expect(events.at(-1)).toEqual({ type: "abort" });
  });

  it("工具不理会信号：注册表最多再等 CANCEL_GRACE_MS，记一条被取消的结果，它迟到的结果被丢掉", async () => {
    vi.useFakeTimers();
    onTestFinished(() => void vi.useRealTimers());
    const controller = new AbortController();
    const tools = new ToolRegistry();
    let finish: (value: { content: string }) => void = () => {};
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    tools.register({
      name: "slow",
      description: "执行期间按下取消",
      parameters: { type: "object", properties: {} },
      execute() {
        started();
        return new Promise((resolve) => (finish = resolve));
      },
    });
    const context = userSays("x");
    const done = collect(runAgentLoop({ streamFn: scripted(toolUse(call("1", "slow"))), context, tools, toolContext, signal: controller.signal }));
    await running;
    controller.abort();
    await vi.advanceTimersByTimeAsync(CANCEL_GRACE_MS - 1);
    expect(context.messages.filter((m) => m.role === "toolResult")).toHaveLength(0); // 还在等它
    await vi.advanceTimersByTimeAsync(1);
    const events = await done;
    expect(context.messages.at(-1)).toEqual({ role: "toolResult", toolCallId: "1", toolName: "slow", content: "工具 slow 被取消", isError: true });
    expect(events.at(-1)).toEqual({ type: "abort" });
    finish({ content: "迟到的结果" });
    await Promise.resolve();
    expect(context.messages.filter((m) => m.role === "toolResult")).toHaveLength(1);
  });

  it("tool_call 事件交出去、工具还没开始时按下取消：不再开始这个工具，也不挂住", async () => {
    const controller = new AbortController();
    const tools = new ToolRegistry();
    const ran: string[] = [];
    // 不看信号、永远不结束的工具：要是它被开始了，循环只能靠信号脱身
    tools.register({ name: "hang", description: "永远不结束", parameters: { type: "object", properties: {} }, execute: () => (ran.push("hang"), new Promise<never>(() => {})) });
    const context = userSays("x");
    const events: HarnessEvent[] = [];
    for await (const event of runAgentLoop({ streamFn: scripted(toolUse(call("1", "hang"))), context, tools, toolContext, signal: controller.signal })) {
      events.push(event);
      if (event.type === "tool_call") controller.abort(); // 界面处理 tool_call 的时候（例如正在写会话文件）按了 Ctrl+C
    }
    expect(ran).toEqual([]);
    expect(context.messages.at(-1)).toEqual({ role: "toolResult", toolCallId: "1", toolName: "hang", content: "工具 hang 被取消", isError: true });
    expect(events.at(-1)).toEqual({ type: "abort" });
  }, 20_000); // 出了毛病时这个测试会一直挂着：只在那时起作用的上限

  it("signal 被透传给 streamFn", async () => {
    const controller = new AbortController();
    let seen: AbortSignal | undefined;
    const spy: StreamFn = async function* (_context, options) {
      seen = options?.signal;
      yield { type: "done", message: stop("好") };
    };
    await collect(runAgentLoop({ streamFn: spy, context: userSays("x"), tools: createBuiltinTools(), toolContext, signal: controller.signal }));
    expect(seen).toBe(controller.signal);
  });
});
