/**
 * 回合层重试的边角（变异测试找出来的，见 scripts/mutation/）：参数检查、等待上限、
 * 「压缩重跑一次」的预算何时重新算、静默溢出而没有可压缩的、开始前就取消。
 * 剧本模型、极短的等待（0 到 15 ms，只为让重试真的走一遍，不比快慢）。
 */
import { describe, expect, it } from "vitest";

import { OVERFLOW_RECOVERY_FAILED, runWithRetry, type RunWithRetryOptions } from "../src/retry/turn-retry.js";
import { createBuiltinTools } from "../src/tools/index.js";
import type { AssistantMessage, Context, HarnessEvent, Message, StreamFn } from "../src/types.js";

function scripted(...replies: AssistantMessage[]): StreamFn & { calls: () => number } {
  let calls = 0;
  const fn: StreamFn = async function* () {
    const reply = replies[calls++];
    if (!reply) throw new Error("剧本用完了");
    yield { type: "done", message: reply };
  };
  return Object.assign(fn, { calls: () => calls });
}

const fail = (errorMessage: string): AssistantMessage => ({ role: "assistant", content: [], stopReason: "error", errorMessage });
const say = (text: string): AssistantMessage => ({ role: "assistant", content: [{ type: "text", text }], stopReason: "stop" });
const calc = (expression: string): AssistantMessage => ({
  role: "assistant",
  content: [{ type: "toolCall", id: "c1", name: "calc", arguments: { expression } }],
  stopReason: "toolUse",
});
const E500 = "HTTP 500：api_error：Internal Server Error";
const OVERFLOW = "HTTP 400：invalid_request_error：prompt is too long: 213462 tokens > 200000 maximum";
const NOTHING_LEFT = "上下文溢出，无法压缩：只剩最后一轮对话，没有可以省略的早先消息";
const history = (): Message[] => [
  { role: "user", content: "一问" },
  say("一答"),
  { role: "user", content: "二问" },
  say("二答"),
  { role: "user", content: "三问" },
];

function options(streamFn: StreamFn, context: Context, extra: Partial<RunWithRetryOptions> = {}): RunWithRetryOptions {
  return { streamFn, context, tools: createBuiltinTools(), toolContext: { cwd: process.cwd() }, baseDelayMs: 0, ...extra };
}

async function run(opts: RunWithRetryOptions): Promise<HarnessEvent[]> {
  const events: HarnessEvent[] = [];
  for await (const event of runWithRetry(opts)) events.push(event);
  return events;
}

const retryEvents = (events: HarnessEvent[]) =>
  events.filter((e) => e.type === "auto_retry_start" || e.type === "auto_retry_end" || e.type.startsWith("compaction"));

describe("runWithRetry 的边角", () => {
  it.each([-1, 1.5, Number.NaN])("maxRetries %s：调用方的错误，直接抛出并说出收到的值", async (maxRetries) => {
    await expect(run(options(scripted(say("x")), { messages: [] }, { maxRetries }))).rejects.toThrow(
      new RangeError(`maxRetries 必须是非负整数，收到的是 ${maxRetries}`),
    );
  });

  it("maxDelayMs：指数增长的等待被它封顶", async () => {
    const model = scripted(fail(E500), fail(E500), say("好了"));
    const events = await run(options(model, { messages: history() }, { baseDelayMs: 10, maxDelayMs: 15 }));
    expect(events.filter((e) => e.type === "auto_retry_start").map((e) => (e.type === "auto_retry_start" ? e.delayMs : 0))).toEqual([10, 15]);
  });

  it("重试成功的 auto_retry_end 不带 finalError 字段", async () => {
    const events = await run(options(scripted(fail(E500), say("好了")), { messages: history() }));
    const end = events.find((e) => e.type === "auto_retry_end");
    expect(end).toStrictEqual({ type: "auto_retry_end", success: true, attempt: 1 });
  });

  it("开始之前就取消了：只有一个 abort，不出错、不调用模型", async () => {
    const controller = new AbortController();
    controller.abort();
    const model = scripted(say("用不到"));
    expect(await run(options(model, { messages: history() }, { signal: controller.signal }))).toEqual([{ type: "abort" }]);
    expect(model.calls()).toBe(0);
  });

  it("压缩重跑之后模型正常干了一步活：预算重新算，再溢出就再试着压缩一次", async () => {
    const model = scripted(fail(OVERFLOW), calc("1+1"), fail(OVERFLOW));
    const events = await run(options(model, { messages: history() }));
    expect(retryEvents(events)).toEqual([
      { type: "compaction", dropped: 4, willRetry: true },
      // 再压缩一次：这回只剩最后一轮，没有可丢的——说的是「无法压缩」，不是「压缩并重试一次之后仍然超出」
      { type: "compaction_failed", errorMessage: NOTHING_LEFT },
    ]);
  });

  it("压缩重跑之后因 length 停下（输出为零、输入占满窗口）：仍算同一次溢出，不再压缩", async () => {
    const truncated: AssistantMessage = { role: "assistant", content: [], stopReason: "length", usage: { input: 1000, output: 0, cacheRead: 0, cacheWrite: 0 } };
    const model = scripted(fail(OVERFLOW), truncated, say("用不到"));
    const events = await run(options(model, { messages: history() }, { contextWindow: 1000 }));
    expect(retryEvents(events)).toEqual([
      { type: "compaction", dropped: 4, willRetry: true },
      { type: "compaction_failed", errorMessage: OVERFLOW_RECOVERY_FAILED },
    ]);
    expect(model.calls()).toBe(2);
  });

  it("静默溢出（stop，但输入超窗口）而只有一轮：没有可压缩的，也不报压缩事件、不改上下文", async () => {
    const reply: AssistantMessage = { ...say("答"), usage: { input: 2000, output: 5, cacheRead: 0, cacheWrite: 0 } };
    const context: Context = { messages: [{ role: "user", content: "唯一的问题" }] };
    const events = await run(options(scripted(reply), context, { contextWindow: 1000 }));
    expect(retryEvents(events)).toEqual([]);
    expect(context.messages).toEqual([{ role: "user", content: "唯一的问题" }, reply]);
  });
});
