import { afterEach, describe, expect, it } from "vitest";
import { startProviderServer, type ProviderServer } from "scripted-provider";
import { createOpenAIStream } from "../src/providers/openai-completions.js";
import { compactionNote } from "../src/retry/compaction.js";
import { OVERFLOW_RECOVERY_FAILED, RETRY_CANCELLED, runWithRetry, type RunWithRetryOptions } from "../src/retry/turn-retry.js";
import { createBuiltinTools } from "../src/tools/index.js";
import type { AssistantMessage, Context, HarnessEvent, Message, StreamFn } from "../src/types.js";
import { KEY } from "./helpers/providers.js";

// ── 剧本模型 ───────────────────────────────────────────────────

type Step = AssistantMessage | "hang";

/** 按顺序给出回复的模型；记下每次被调用时看到的消息。"hang"：一直等到被取消。 */
function scripted(...steps: Step[]): StreamFn & { seen: Message[][] } {
  const seen: Message[][] = [];
  const fn: StreamFn = async function* (context, options) {
    seen.push([...context.messages]); // 记下这一次看到的是哪些消息（消息对象本身不会被改，浅拷贝就够，十万条时也不慢）
    const step = steps[seen.length - 1];
    if (!step) throw new Error("剧本用完了");
    if (step === "hang") {
      await new Promise<void>((resolve) => {
        if (options?.signal?.aborted) resolve();
        options?.signal?.addEventListener("abort", () => resolve(), { once: true });
      });
      yield { type: "done", message: { role: "assistant", content: [], stopReason: "aborted" } };
      return;
    }
    for (const block of step.content) if (block.type === "text") yield { type: "text_delta", delta: block.text };
    yield { type: "done", message: step };
  };
  return Object.assign(fn, { seen });
}

const fail = (errorMessage: string): AssistantMessage => ({ role: "assistant", content: [], stopReason: "error", errorMessage });
const say = (text: string): AssistantMessage => ({ role: "assistant", content: [{ type: "text", text }], stopReason: "stop" });
const calc = (id: string, expression: string): AssistantMessage => ({
  role: "assistant",
  content: [{ type: "toolCall", id, name: "calc", arguments: { expression } }],
  stopReason: "toolUse",
});
const E500 = "HTTP 500：api_error：Internal Server Error";
const OVERFLOW = "HTTP 400：invalid_request_error：prompt is too long: 213462 tokens > 200000 maximum";

function options(streamFn: StreamFn, context: Context, extra: Partial<RunWithRetryOptions> = {}): RunWithRetryOptions {
  return { streamFn, context, tools: createBuiltinTools(), toolContext: { cwd: process.cwd() }, baseDelayMs: 5, ...extra };
}

async function run(opts: RunWithRetryOptions, onEvent?: (event: HarnessEvent) => void): Promise<HarnessEvent[]> {
  const events: HarnessEvent[] = [];
  for await (const event of runWithRetry(opts)) {
    events.push(event);
    onEvent?.(event);
  }
  return events;
}

/** 事件骨架：连续的 text_delta 合成一个；message 写成 message:<stopReason 或 toolResult>。 */
function skeleton(events: HarnessEvent[]): string[] {
  const out: string[] = [];
  for (const event of events) {
    if (event.type === "text_delta" && out.at(-1) === "text_delta") continue;
    if (event.type === "message") {
      out.push(`message:${event.message.role === "assistant" ? event.message.stopReason : event.message.role}`);
    } else out.push(event.type);
  }
  return out;
}

const retryEvents = (events: HarnessEvent[]) =>
  events.filter((e) => e.type === "auto_retry_start" || e.type === "auto_retry_end" || e.type.startsWith("compaction"));

const ask = (...history: Message[]): Context => ({ messages: [...history] });

// ── 退避重试 ───────────────────────────────────────────────────

describe("runWithRetry：可重试的错误", () => {
  it("500、500、成功：两次 auto_retry_start（5、10 ms），成功后 auto_retry_end；失败消息离开上下文", async () => {
    const model = scripted(fail(E500), fail(E500), say("好了"));
    const context = ask({ role: "user", content: "你好" });
    const events = await run(options(model, context));
    expect(skeleton(events)).toEqual([
      "turn_start", "message:error", "turn_end", "auto_retry_start",
      "turn_start", "message:error", "turn_end", "auto_retry_start",
      "turn_start", "text_delta", "message:stop", "auto_retry_end", "turn_end",
    ]);
    expect(retryEvents(events)).toEqual([
      { type: "auto_retry_start", attempt: 1, maxAttempts: 3, delayMs: 5, errorMessage: E500 },
      { type: "auto_retry_start", attempt: 2, maxAttempts: 3, delayMs: 10, errorMessage: E500 },
      { type: "auto_retry_end", success: true, attempt: 2 },
    ]);
    // 运行时上下文里没有失败消息；每次重跑，模型看到的都只是用户那句话
    expect(context.messages).toEqual([{ role: "user", content: "你好" }, say("好了")]);
    expect(model.seen).toEqual([context.messages.slice(0, 1), context.messages.slice(0, 1), context.messages.slice(0, 1)]);
    // 但它们都以 message 事件流过了——会话文件（session.record）会把它们记下
    const recorded = events.flatMap((e) => (e.type === "message" ? [e.message] : []));
    expect(recorded).toEqual([fail(E500), fail(E500), say("好了")]);
  });

  it("重试用完（默认 3 次，5/10/20 ms）：auto_retry_end 报告最后的错误；最后那条失败消息留在上下文里", async () => {
    const model = scripted(fail(E500), fail("HTTP 502：Bad Gateway"), fail("socket hang up"), fail("HTTP 503：Service Unavailable"));
    const context = ask({ role: "user", content: "你好" });
    const events = await run(options(model, context));
    expect(retryEvents(events)).toEqual([
      { type: "auto_retry_start", attempt: 1, maxAttempts: 3, delayMs: 5, errorMessage: E500 },
      { type: "auto_retry_start", attempt: 2, maxAttempts: 3, delayMs: 10, errorMessage: "HTTP 502：Bad Gateway" },
      { type: "auto_retry_start", attempt: 3, maxAttempts: 3, delayMs: 20, errorMessage: "socket hang up" },
      { type: "auto_retry_end", success: false, attempt: 3, finalError: "HTTP 503：Service Unavailable" },
    ]);
    expect(model.seen).toHaveLength(4);
    expect(events.at(-1)).toEqual({ type: "auto_retry_end", success: false, attempt: 3, finalError: "HTTP 503：Service Unavailable" });
    expect(context.messages).toEqual([{ role: "user", content: "你好" }, fail("HTTP 503：Service Unavailable")]);
  });

  it("不可重试的错误：一次都不重试，也没有重试事件", async () => {
    for (const error of ["HTTP 401：authentication_error：invalid x-api-key", "HTTP 429：insufficient_quota：You exceeded your current quota"]) {
      const model = scripted(fail(error), say("用不到"));
      const events = await run(options(model, ask({ role: "user", content: "你好" })));
      expect(retryEvents(events)).toEqual([]);
      expect(model.seen).toHaveLength(1);
    }
  });

  it("重试中遇到不可重试的错误：这一段以失败结束", async () => {
    const model = scripted(fail(E500), fail("HTTP 401：authentication_error：invalid x-api-key"));
    const events = await run(options(model, ask({ role: "user", content: "你好" })));
    expect(retryEvents(events)).toEqual([
      { type: "auto_retry_start", attempt: 1, maxAttempts: 3, delayMs: 5, errorMessage: E500 },
      { type: "auto_retry_end", success: false, attempt: 1, finalError: "HTTP 401：authentication_error：invalid x-api-key" },
    ]);
  });

  it("maxRetries 与 baseDelayMs 可配置；maxRetries: 0 = 不重试", async () => {
    const twice = scripted(fail(E500), fail(E500), fail(E500));
    const events = await run(options(twice, ask({ role: "user", content: "x" }), { maxRetries: 2, baseDelayMs: 3 }));
    expect(retryEvents(events).map((e) => (e.type === "auto_retry_start" ? e.delayMs : e.type))).toEqual([3, 6, "auto_retry_end"]);
    const never = scripted(fail(E500), say("用不到"));
    expect(retryEvents(await run(options(never, ask({ role: "user", content: "x" }), { maxRetries: 0 })))).toEqual([]);
    expect(never.seen).toHaveLength(1);
  });

  it("默认值：3 次、2000 ms 起（这里一看到 auto_retry_start 就取消，不真等）", async () => {
    const controller = new AbortController();
    const model = scripted(fail(E500));
    const { baseDelayMs: _ignored, ...defaults } = options(model, ask({ role: "user", content: "x" }));
    const events = await run({ ...defaults, signal: controller.signal }, (e) => {
      if (e.type === "auto_retry_start") controller.abort();
    });
    expect(retryEvents(events)[0]).toEqual({ type: "auto_retry_start", attempt: 1, maxAttempts: 3, delayMs: 2000, errorMessage: E500 });
  });

  it("工具调用之后才失败：重跑时工具结果还在上下文里，模型从那里接着来", async () => {
    const model = scripted(calc("c1", "17*38"), fail(E500), say("结果是 646。"));
    const context = ask({ role: "user", content: "算 17*38" });
    const events = await run(options(model, context));
    expect(skeleton(events)).toEqual([
      "turn_start", "message:toolUse", "tool_call", "message:toolResult", "turn_end",
      "turn_start", "message:error", "turn_end", "auto_retry_start",
      "turn_start", "text_delta", "message:stop", "auto_retry_end", "turn_end",
    ]);
    expect(model.seen[2]?.map((m) => m.role)).toEqual(["user", "assistant", "toolResult"]);
    expect(context.messages.map((m) => m.role)).toEqual(["user", "assistant", "toolResult", "assistant"]);
  });

  it("一次成功的回复之后，重试预算重新算（与 Pi 相同）", async () => {
    const model = scripted(fail(E500), calc("c1", "1+1"), fail(E500), say("2"));
    const events = await run(options(model, ask({ role: "user", content: "算 1+1" })));
    expect(retryEvents(events)).toEqual([
      { type: "auto_retry_start", attempt: 1, maxAttempts: 3, delayMs: 5, errorMessage: E500 },
      { type: "auto_retry_end", success: true, attempt: 1 },
      { type: "auto_retry_start", attempt: 1, maxAttempts: 3, delayMs: 5, errorMessage: E500 },
      { type: "auto_retry_end", success: true, attempt: 1 },
    ]);
  });
});

// ── 取消 ───────────────────────────────────────────────────────

describe("runWithRetry：取消永远不重试", () => {
  it("退避等待中按 Ctrl+C：立刻收场——auto_retry_end(取消) + abort，不再发请求", async () => {
    const controller = new AbortController();
    const model = scripted(fail(E500), say("用不到"));
    const started = Date.now();
    const events = await run(options(model, ask({ role: "user", content: "x" }), { baseDelayMs: 60_000, signal: controller.signal }), (e) => {
      if (e.type === "auto_retry_start") setTimeout(() => controller.abort(), 10);
    });
    expect(Date.now() - started).toBeLessThan(10_000); // 宽松上限：远小于 60 秒的等待
    expect(skeleton(events)).toEqual(["turn_start", "message:error", "turn_end", "auto_retry_start", "auto_retry_end", "abort"]);
    expect(events.at(-2)).toEqual({ type: "auto_retry_end", success: false, attempt: 1, finalError: RETRY_CANCELLED });
    expect(model.seen).toHaveLength(1);
  });

  it("重跑的那一次进行中按 Ctrl+C：aborted 消息，接着 auto_retry_end(取消) 与 abort", async () => {
    const controller = new AbortController();
    const model = scripted(fail(E500), "hang");
    const events = await run(options(model, ask({ role: "user", content: "x" }), { signal: controller.signal }), (e) => {
      if (e.type === "turn_start" && model.seen.length === 1) setTimeout(() => controller.abort(), 10);
    });
    expect(skeleton(events)).toEqual([
      "turn_start", "message:error", "turn_end", "auto_retry_start",
      "turn_start", "message:aborted", "auto_retry_end", "abort",
    ]);
    expect(retryEvents(events).at(-1)).toEqual({ type: "auto_retry_end", success: false, attempt: 1, finalError: RETRY_CANCELLED });
  });

  it("第一次就被取消：没有任何重试事件", async () => {
    const controller = new AbortController();
    const model = scripted("hang", say("用不到"));
    setTimeout(() => controller.abort(), 10);
    const events = await run(options(model, ask({ role: "user", content: "x" }), { signal: controller.signal }));
    expect(skeleton(events)).toEqual(["turn_start", "message:aborted", "abort"]);
    expect(model.seen).toHaveLength(1);
  });
});

// ── 上下文溢出 ─────────────────────────────────────────────────

const LONG_HISTORY: Message[] = [
  { role: "user", content: "第一问" },
  say("第一答"),
  { role: "user", content: "第二问" },
  calc("c1", "1+1"),
  { role: "toolResult", toolCallId: "c1", toolName: "calc", content: "2" },
  say("第二答"),
  { role: "user", content: "第三问" },
];

describe("runWithRetry：上下文溢出 → 压缩一次、重跑一次", () => {
  it("溢出 → 压缩（省略 6 条）→ 成功；不走退避重试", async () => {
    const model = scripted(fail(OVERFLOW), say("第三答"));
    const context = ask(...LONG_HISTORY);
    const events = await run(options(model, context));
    expect(skeleton(events)).toEqual([
      "turn_start", "message:error", "turn_end", "compaction",
      "turn_start", "text_delta", "message:stop", "turn_end",
    ]);
    expect(retryEvents(events)).toEqual([{ type: "compaction", dropped: 6, willRetry: true }]);
    const compacted = [{ role: "user", content: compactionNote(6) }, { role: "user", content: "第三问" }];
    expect(model.seen[1]).toEqual(compacted);
    expect(context.messages).toEqual([...compacted, say("第三答")]);
  });

  it("压缩重跑之后又溢出：清楚的错误，不再重试", async () => {
    const model = scripted(fail(OVERFLOW), fail(OVERFLOW), say("用不到"));
    const events = await run(options(model, ask(...LONG_HISTORY)));
    expect(retryEvents(events)).toEqual([
      { type: "compaction", dropped: 6, willRetry: true },
      { type: "compaction_failed", errorMessage: OVERFLOW_RECOVERY_FAILED },
    ]);
    expect(model.seen).toHaveLength(2);
  });

  it("只有一轮就溢出了：没有可省略的，直接报错", async () => {
    const model = scripted(fail(OVERFLOW), say("用不到"));
    const events = await run(options(model, ask({ role: "user", content: "一个超长的问题" })));
    expect(retryEvents(events)).toEqual([
      { type: "compaction_failed", errorMessage: "上下文溢出，无法压缩：只剩最后一轮对话，没有可以省略的早先消息" },
    ]);
    expect(model.seen).toHaveLength(1);
  });

  it("退避重试途中撞上溢出：那一段重试以失败结束，转去压缩", async () => {
    const model = scripted(fail(E500), fail(OVERFLOW), say("第三答"));
    const events = await run(options(model, ask(...LONG_HISTORY)));
    expect(retryEvents(events)).toEqual([
      { type: "auto_retry_start", attempt: 1, maxAttempts: 3, delayMs: 5, errorMessage: E500 },
      { type: "auto_retry_end", success: false, attempt: 1, finalError: OVERFLOW },
      { type: "compaction", dropped: 6, willRetry: true },
    ]);
    expect(model.seen).toHaveLength(3);
  });

  it("给了 contextWindow：length + 零输出 + 占满窗口 也是溢出，压缩后重跑", async () => {
    const truncated: AssistantMessage = {
      role: "assistant",
      content: [],
      stopReason: "length",
      usage: { input: 1000, output: 0, cacheRead: 0, cacheWrite: 0 },
    };
    const model = scripted(truncated, say("第三答"));
    const events = await run(options(model, ask(...LONG_HISTORY), { contextWindow: 1000 }));
    expect(retryEvents(events)).toEqual([{ type: "compaction", dropped: 6, willRetry: true }]);
    expect(model.seen).toHaveLength(2);
  });

  it("十万条消息的上下文：退避重试与压缩都不会撑爆调用栈", async () => {
    const huge: Message[] = [];
    for (let i = 0; i < 50_000; i++) huge.push({ role: "user", content: `问 ${i}` }, say(`答 ${i}`));
    huge.push({ role: "user", content: "最后一问" });
    const model = scripted(fail(E500), fail(OVERFLOW), say("最后一答"));
    const context: Context = { messages: huge };
    const events = await run(options(model, context));
    expect(retryEvents(events).map((e) => e.type)).toEqual(["auto_retry_start", "auto_retry_end", "compaction"]);
    expect(context.messages).toEqual([
      { role: "user", content: compactionNote(100_000) },
      { role: "user", content: "最后一问" },
      say("最后一答"),
    ]);
  });

  it("静默溢出（stop，但输入已超窗口）：回复照用，压缩好让下一次装得下，不重跑", async () => {
    const silent: AssistantMessage = { ...say("第三答"), usage: { input: 1500, output: 3, cacheRead: 0, cacheWrite: 0 } };
    const model = scripted(silent);
    const context = ask(...LONG_HISTORY);
    const events = await run(options(model, context, { contextWindow: 1000 }));
    expect(retryEvents(events)).toEqual([{ type: "compaction", dropped: 6, willRetry: false }]);
    expect(model.seen).toHaveLength(1);
    expect(context.messages).toEqual([{ role: "user", content: compactionNote(6) }, { role: "user", content: "第三问" }, silent]);
  });
});

// ── 端到端：真的服务器、真的 Provider ─────────────────────────────

describe("runWithRetry + 真的 Provider（HTTP 层不重试，只看回合层）", () => {
  let server: ProviderServer | undefined;
  afterEach(async () => {
    await server?.close();
  });

  it("500、流中断、成功：回合层重试两次；服务器收到 3 个一样的请求", async () => {
    server = await startProviderServer([{ httpError: 500 }, { text: "半句", dropAfterChunks: 3 }, { text: "完整的回答" }]);
    const streamFn = createOpenAIStream({ baseUrl: server.openaiBaseUrl, apiKey: KEY, model: "m", maxRetries: 0 });
    const context = ask({ role: "user", content: "你好" });
    const events = await run(options(streamFn, context));
    expect(retryEvents(events)).toEqual([
      { type: "auto_retry_start", attempt: 1, maxAttempts: 3, delayMs: 5, errorMessage: "HTTP 500：api_error：Internal Server Error" },
      expect.objectContaining({ type: "auto_retry_start", attempt: 2, delayMs: 10, errorMessage: expect.stringMatching(/^流在结束前中断：/) }),
      { type: "auto_retry_end", success: true, attempt: 2 },
    ]);
    expect(server.requests).toHaveLength(3);
    // 发出去的请求里从来没有失败的那几条
    expect(new Set(server.requests.map((r) => JSON.stringify(r.body))).size).toBe(1);
    expect(context.messages.at(-1)).toMatchObject({ stopReason: "stop", content: [{ type: "text", text: "完整的回答" }] });
  });
});
