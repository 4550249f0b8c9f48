import { getEventListeners } from "node:events";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { runAgentLoop } from "../src/agent-loop.js";
import { DEFAULT_MODEL_TIMEOUT_MS, guardCall, withModelTimeout } from "../src/guard.js";
import { startProviderServer, type ProviderServer } from "scripted-provider";
import { createOpenAIStream } from "../src/providers/openai-completions.js";
import { classifyAssistantError } from "../src/retry/classify.js";
import { runWithRetry } from "../src/retry/turn-retry.js";
import { createBuiltinTools } from "../src/tools/index.js";
import { readFileTool } from "../src/tools/read-file.js";
import { ToolRegistry, type ToolDefinition } from "../src/tools/types.js";
import type { AssistantMessage, HarnessEvent, StreamFn, ToolCall } from "../src/types.js";
import { collect, countingFetch, KEY } from "./helpers/providers.js";
import { until, useFakeClock } from "./helpers/wait.js";

// ── guardCall ─────────────────────────────────────────────────

describe("guardCall：每次调用自己的信号", () => {
  it("上层取消 → 它跟着取消，但不算超时", () => {
    const parent = new AbortController();
    const guard = guardCall(parent.signal, 60_000);
    parent.abort();
    expect(guard.signal.aborted).toBe(true);
    expect(guard.timedOut()).toBe(false);
    guard.dispose();
  });

  it("到点 → 只取消它自己，上层不受影响", async () => {
    const parent = new AbortController();
    const guard = guardCall(parent.signal, 10);
    await guard.expired;
    expect(guard.signal.aborted).toBe(true);
    expect(guard.timedOut()).toBe(true);
    expect(parent.signal.aborted).toBe(false);
    guard.dispose();
  });

  it("restart：从那一刻起重新计时（模型的空闲时限靠它）", async (test) => {
    useFakeClock(test);
    const guard = guardCall(undefined, 100);
    let expired = false;
    void guard.expired.then(() => (expired = true));
    await vi.advanceTimersByTimeAsync(60);
    guard.restart();
    await vi.advanceTimersByTimeAsync(60); // 从开始算已经 120ms，从 restart 算才 60ms
    expect([expired, guard.signal.aborted]).toEqual([false, false]);
    await vi.advanceTimersByTimeAsync(40);
    expect([expired, guard.timedOut()]).toEqual([true, true]);
    guard.dispose();
  });

  it("dispose 之后上层信号上不留监听", () => {
    const parent = new AbortController();
    for (let i = 0; i < 100; i++) guardCall(parent.signal, 60_000).dispose();
    expect(getEventListeners(parent.signal, "abort")).toHaveLength(0);
  });
});

// ── 模型超时 ───────────────────────────────────────────────────

const servers: ProviderServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function serve(script: Parameters<typeof startProviderServer>[0]) {
  const server = await startProviderServer(script);
  servers.push(server);
  return { server, stream: createOpenAIStream({ baseUrl: server.openaiBaseUrl, apiKey: KEY, model: "m", maxRetries: 0 }) };
}

describe("withModelTimeout：空闲时限", () => {
  // 时限由测试拨动的假时钟决定：先等服务器说「请求到了」，再把时钟拨过时限。
  // 机器多忙都一样——不会出现「时限先到、请求还没到服务器」的赛跑。
  it("默认 300000ms，与 Pi 的 httpIdleTimeoutMs 相同", () => {
    expect(DEFAULT_MODEL_TIMEOUT_MS).toBe(300_000);
  });

  /**
   * 服务器每 100ms（假时钟）发一个事件，前后远超过时限：每拨 100ms 放出下一块，
   * 等客户端真的读到它（数响应体被读了几块）再拨下一次——时钟只在客户端读到字节之后才往前走，不赛跑。
   */
  async function streamEvery100ms(script: Parameters<typeof startProviderServer>[0], limitMs: number) {
    const server = await startProviderServer(script);
    servers.push(server);
    const counting = countingFetch();
    const stream = createOpenAIStream({ baseUrl: server.openaiBaseUrl, apiKey: KEY, model: "m", maxRetries: 0, fetch: counting.fetch });
    let finished = false;
    const pending = collect(withModelTimeout(stream, limitMs)).finally(() => (finished = true));
    await until(() => counting.reads() > 0, "第一块数据到了客户端");
    let elapsed = 0;
    while (!finished) {
      const before = counting.reads();
      await vi.advanceTimersByTimeAsync(100);
      elapsed += 100;
      await until(() => finished || counting.reads() > before, "下一块数据到了客户端");
    }
    return { ...(await pending), elapsed };
  }

  it("一直在流的回答不会被掐断：每 100ms 一段、前后两秒多，时限 1500ms 照样说完", async (test) => {
    useFakeClock(test);
    const text = "一二三四五六七八九十".repeat(4); // 两个字一段：20 段
    const { message, elapsed } = await streamEvery100ms([{ text, chunkDelayMs: 100 }], 1_500);
    expect(elapsed).toBeGreaterThan(1_500); // 总时长超过了时限：总时限会把它掐断
    expect(message).toMatchObject({ stopReason: "stop", content: [{ type: "text", text }] });
  });

  it("排队时只有 : keep-alive 注释（没有一个事件）也算动静：每 100ms 一行、两秒之后才回答，时限 1500ms 照样说完", async (test) => {
    useFakeClock(test);
    const { message, elapsed } = await streamEvery100ms([{ keepAlive: 20, text: "好了", chunkDelayMs: 100 }], 1_500);
    expect(elapsed).toBeGreaterThan(1_500);
    expect(message).toMatchObject({ stopReason: "stop", content: [{ type: "text", text: "好了" }] });
  });

  it("服务器发完响应头就不出声：到点以「模型调用超时」收尾（可重试）；服务器看到客户端断开", async (test) => {
    const { server, stream } = await serve([{ hang: true }]);
    useFakeClock(test);
    const pending = collect(withModelTimeout(stream, 400));
    await until(() => server.requests.length === 1, "服务器收到请求");
    await vi.advanceTimersByTimeAsync(400);
    const { message } = await pending;
    expect(message).toEqual({ role: "assistant", content: [], stopReason: "error", errorMessage: "模型调用超时（400ms）" });
    expect(classifyAssistantError(message)).toBe("retryable");
    await until(() => server.disconnects.length > 0, "服务器看到连接断开");
    expect(server.disconnects).toEqual([{ request: 0, path: "/v1/chat/completions", closedByClient: true }]);
  });

  it("连响应头都不发：同样超时，连接同样被真的断开", async (test) => {
    const { server, stream } = await serve([{ hang: true, sendHeaders: false }]);
    useFakeClock(test);
    const pending = collect(withModelTimeout(stream, 400));
    await until(() => server.requests.length === 1, "服务器收到请求");
    await vi.advanceTimersByTimeAsync(400);
    expect((await pending).message.errorMessage).toBe("模型调用超时（400ms）");
    await until(() => server.disconnects.length > 0, "服务器看到连接断开");
    expect(server.disconnects).toMatchObject([{ closedByClient: true }]);
  });

  it("说了一半就卡住：已经流出的文字留在消息里", async (test) => {
    const { server, stream } = await serve([{ text: "一二三四五六", hangAfterChunks: 4 }]);
    useFakeClock(test);
    let received = 0;
    const pending = collect(withModelTimeout(stream, 1_000), undefined, undefined, () => received++);
    await until(() => received === 2, "前 4 块（两段文字）流到客户端");
    await vi.advanceTimersByTimeAsync(1_000);
    const { deltas, message } = await pending;
    expect(deltas).toEqual(["一二", "三四"]);
    expect(message).toEqual({
      role: "assistant",
      content: [{ type: "text", text: "一二三四" }],
      stopReason: "error",
      errorMessage: "模型调用超时（1000ms）",
    });
    await until(() => server.disconnects.length > 0, "服务器看到连接断开");
    expect(server.disconnects).toMatchObject([{ closedByClient: true }]);
  });

  it("及时说完：消息原样通过（带用量），定时器也清掉了", async () => {
    const { stream } = await serve([{ text: "很快" }]);
    const { message } = await collect(withModelTimeout(stream, 5_000));
    expect(message).toEqual({
      role: "assistant",
      content: [{ type: "text", text: "很快" }],
      stopReason: "stop",
      usage: { input: 10, output: 2, cacheRead: 0, cacheWrite: 0 },
    });
  });

  it("Ctrl+C 先到：结局是 aborted，不是超时", async () => {
    const { stream } = await serve([{ hang: true }]);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 20);
    const { message } = await collect(withModelTimeout(stream, 60_000), undefined, { signal: controller.signal });
    expect(message).toEqual({ role: "assistant", content: [], stopReason: "aborted" });
  });

  it("底层 StreamFn 不理会信号：也不陪它等，到点就交出超时", async (test) => {
    useFakeClock(test);
    const deaf: StreamFn = async function* () {
      yield { type: "text_delta", delta: "开头" };
      await new Promise((resolve) => setTimeout(resolve, 3_000)); // 故意不看 signal
      yield { type: "done", message: { role: "assistant", content: [{ type: "text", text: "开头……" }], stopReason: "stop" } };
    };
    const pending = collect(withModelTimeout(deaf, 30));
    await vi.advanceTimersByTimeAsync(30); // 只拨到时限：底层那 3 秒永远到不了，结果却已经交出来了
    const { message } = await pending;
    expect(message).toEqual({
      role: "assistant",
      content: [{ type: "text", text: "开头" }],
      stopReason: "error",
      errorMessage: "模型调用超时（30ms）",
    });
  });

  it("ms 为 0：不限时，原样返回", () => {
    const stream: StreamFn = async function* () {};
    expect(withModelTimeout(stream, 0)).toBe(stream);
  });

  it("每次调用各有各的计时：第一次超时不影响第二次", async (test) => {
    const { server, stream } = await serve([{ hang: true }, { text: "第二次好了" }]);
    useFakeClock(test);
    const guarded = withModelTimeout(stream, 500);
    const first = collect(guarded);
    await until(() => server.requests.length === 1, "服务器收到第一个请求");
    await vi.advanceTimersByTimeAsync(500);
    expect((await first).message.stopReason).toBe("error");
    // 第二次：时钟不再拨动，它自己的时限不会到；及时说完就是 stop
    expect((await collect(guarded)).message.stopReason).toBe("stop");
    expect(server.requests).toHaveLength(2);
  });

  it("配合回合层：超时 → 重试 → 成功", async (test) => {
    const { server, stream } = await serve([{ hang: true }, { text: "这次及时" }]);
    useFakeClock(test);
    const events: HarnessEvent[] = [];
    const run = (async () => {
      for await (const event of runWithRetry({
        streamFn: withModelTimeout(stream, 500),
        context: { messages: [{ role: "user", content: "你好" }] },
        tools: createBuiltinTools(),
        toolContext: { cwd: process.cwd() },
        baseDelayMs: 5,
      })) {
        events.push(event);
      }
    })();
    await until(() => server.requests.length === 1, "服务器收到第一个请求");
    await vi.advanceTimersByTimeAsync(500); // 第一次调用到点
    await until(() => events.some((e) => e.type === "auto_retry_start"), "回合层开始退避");
    await vi.advanceTimersByTimeAsync(5); // 退避的 5ms
    await run;
    expect(events.filter((e) => e.type.startsWith("auto_retry"))).toEqual([
      { type: "auto_retry_start", attempt: 1, maxAttempts: 3, delayMs: 5, errorMessage: "模型调用超时（500ms）" },
      { type: "auto_retry_end", success: true, attempt: 1 },
    ]);
    expect(server.requests).toHaveLength(2);
  });
});

// ── 工具超时 ───────────────────────────────────────────────────

/** 只在测试里用的工具：睡 ms 毫秒；signal 一到就停下并记下原因。 */
function sleepTool(log: string[]): ToolDefinition {
  return {
    name: "sleep_tool",
    description: "睡一会儿（测试用）",
    parameters: { type: "object", properties: { ms: { type: "number" } }, required: ["ms"] },
    execute(args, context) {
      const ms = Number(args.ms);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          log.push("睡醒了");
          resolve({ content: `睡了 ${ms}ms` });
        }, ms);
        context.signal?.addEventListener(
          "abort",
          () => {
            clearTimeout(timer);
            log.push("收到取消，停下");
            reject(new Error("被叫醒"));
          },
          { once: true },
        );
      });
    },
  };
}

/** 不理会信号的工具：到点也不停。 */
const deafTool: ToolDefinition = {
  name: "deaf_tool",
  description: "不理会信号（测试用）",
  parameters: { type: "object", properties: {} },
  execute: () => new Promise((resolve) => setTimeout(() => resolve({ content: "终于好了" }), 3_000).unref()),
};

const call = (name: string, args: Record<string, unknown> = {}, id = "t1"): ToolCall => ({ type: "toolCall", id, name, arguments: args });

describe("ToolRegistry.execute：每次工具调用的时限", () => {
  it("挂住的工具：它的信号被取消（真的停下），结果是超时错误", async () => {
    const log: string[] = [];
    const tools = new ToolRegistry();
    tools.register(sleepTool(log));
    const result = await tools.execute(call("sleep_tool", { ms: 60_000 }), { cwd: ".", timeoutMs: 30 });
    expect(result).toEqual({ role: "toolResult", toolCallId: "t1", toolName: "sleep_tool", content: "工具 sleep_tool 执行超时（30ms）", isError: true });
    expect(log).toEqual(["收到取消，停下"]);
  });

  it("及时完成：结果照旧", async () => {
    const log: string[] = [];
    const tools = new ToolRegistry();
    tools.register(sleepTool(log));
    const result = await tools.execute(call("sleep_tool", { ms: 5 }), { cwd: ".", timeoutMs: 5_000 });
    expect(result.content).toBe("睡了 5ms");
    expect(log).toEqual(["睡醒了"]);
  });

  it("不理会信号的工具：照样不等它，到点交出超时结果", async (test) => {
    useFakeClock(test);
    const tools = new ToolRegistry();
    tools.register(deafTool);
    const pending = tools.execute(call("deaf_tool"), { cwd: ".", timeoutMs: 30 });
    await vi.advanceTimersByTimeAsync(30); // 只拨到时限：工具那 3 秒永远到不了，结果却已经交出来了
    const result = await pending;
    expect(result.content).toBe("工具 deaf_tool 执行超时（30ms）");
  });

  it("Ctrl+C 也会传到工具的信号：理会它的工具停下，结果是「被取消」", async () => {
    const log: string[] = [];
    const tools = new ToolRegistry();
    tools.register(sleepTool(log));
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 10);
    const result = await tools.execute(call("sleep_tool", { ms: 60_000 }), { cwd: ".", signal: controller.signal });
    expect(result).toMatchObject({ content: "工具 sleep_tool 被取消", isError: true });
    expect(log).toEqual(["收到取消，停下"]);
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });

  it("不理会信号的工具遇上 Ctrl+C：也不等它，立刻交出「被取消」", async (test) => {
    useFakeClock(test); // 时钟不动：工具那 3 秒、60 秒的时限都到不了，只有 Ctrl+C
    const tools = new ToolRegistry();
    tools.register(deafTool);
    const controller = new AbortController();
    const pending = tools.execute(call("deaf_tool"), { cwd: ".", signal: controller.signal, timeoutMs: 60_000 });
    controller.abort();
    const result = await pending;
    expect(result).toMatchObject({ content: "工具 deaf_tool 被取消", isError: true });
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });

  it("不给时限：不计时（step07 的行为不变）", async () => {
    const tools = createBuiltinTools();
    expect((await tools.execute(call("calc", { expression: "17*38" }), { cwd: "." })).content).toBe("646");
  });

  it("read_file 把信号交给 readFile：已经取消的读取不会读出内容", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "step09-"));
    fs.writeFileSync(path.join(dir, "a.txt"), "内容");
    const tools = createBuiltinTools();
    expect((await tools.execute(call("read_file", { path: "a.txt" }), { cwd: dir, timeoutMs: 5_000 })).content).toBe("内容");
    const controller = new AbortController();
    controller.abort();
    // 工具自己：读取被取消，不读出内容
    expect(await readFileTool.execute({ path: "a.txt" }, { cwd: dir, signal: controller.signal })).toEqual({
      content: "读取被取消：a.txt",
      isError: true,
    });
    // 经过注册表：不等工具收尾，直接交出「被取消」
    const result = await tools.execute(call("read_file", { path: "a.txt" }), { cwd: dir, signal: controller.signal });
    expect(result).toMatchObject({ content: "工具 read_file 被取消", isError: true });
    fs.rmSync(dir, { recursive: true, force: true, maxRetries: 10 });
  });
});

describe("工具超时在 Agent 循环里：超时结果交给模型，循环接着跑", () => {
  it("第 1 轮工具超时 → 第 2 轮模型看到超时结果并回答", async () => {
    const log: string[] = [];
    const tools = createBuiltinTools();
    tools.register(sleepTool(log));
    const replies: AssistantMessage[] = [
      { role: "assistant", content: [call("sleep_tool", { ms: 60_000 })], stopReason: "toolUse" },
      { role: "assistant", content: [{ type: "text", text: "工具超时了，换个办法。" }], stopReason: "stop" },
    ];
    let calls = 0;
    const streamFn: StreamFn = async function* () {
      const reply = replies[calls++];
      if (reply) yield { type: "done", message: reply };
    };
    const context = { messages: [{ role: "user" as const, content: "睡一分钟" }] };
    const events: HarnessEvent[] = [];
    for await (const event of runAgentLoop({ streamFn, context, tools, toolContext: { cwd: ".", timeoutMs: 30 } })) events.push(event);
    expect(events.map((e) => e.type)).toEqual([
      "turn_start", "message", "tool_call", "message", "turn_end",
      "turn_start", "message", "turn_end",
    ]);
    expect(context.messages[2]).toEqual({
      role: "toolResult",
      toolCallId: "t1",
      toolName: "sleep_tool",
      content: "工具 sleep_tool 执行超时（30ms）",
      isError: true,
    });
    expect(log).toEqual(["收到取消，停下"]);
  });
});
