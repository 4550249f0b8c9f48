// 假模型的边角：变异测试（npm run mutation）找出来的、fake-model.test.ts 没有测到的行为。
// 涉及节奏的都用假时钟（setTimeout 与 performance.now 一起假），不真的等。
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import { abortOnSchedule, createFakeModel, decideReply, tokenize } from "../src/fake-model.js";
import type { Rule } from "../src/rules.js";
import type { AssistantMessage, Context, StreamEvent, StreamFn } from "../src/types.js";

const say = (text: string): Context => ({ messages: [{ role: "user", content: text }] });

/** 把整个流收集起来；每个事件记下它在假时钟上的时刻。 */
async function collect(stream: AsyncIterable<StreamEvent>): Promise<{ deltas: string[]; at: number[]; done: AssistantMessage }> {
  const deltas: string[] = [];
  const at: number[] = [];
  let done: AssistantMessage | undefined;
  for await (const event of stream) {
    if (event.type === "text_delta") {
      deltas.push(event.delta);
      at.push(performance.now());
    } else if (event.type === "done") done = event.message;
  }
  if (!done) throw new Error("没有 done 事件");
  return { deltas, at, done };
}

/** 让假时钟一直往前走，直到 promise 有了结果。 */
async function run<T>(promise: Promise<T>): Promise<T> {
  let finished = false;
  void promise.finally(() => (finished = true)).catch(() => {});
  for (let i = 0; i < 1000 && !finished; i++) await vi.advanceTimersByTimeAsync(10);
  return promise;
}

describe("tokenize 与 decideReply 的边角", () => {
  it("开头没有空格的英文单词也是一整个 token", () => {
    expect(tokenize("abc def")).toEqual(["abc", " def"]);
  });

  it("没有任何规则匹配：不吐字，以 error 收尾", async () => {
    expect(decideReply(say("随便"), [])).toEqual({ text: "", toolCalls: [], error: "剧本里没有任何一条规则匹配（连兜底规则都没有）" });
    const events: StreamEvent[] = [];
    for await (const event of createFakeModel({ rules: [] })(say("随便"))) events.push(event);
    expect(events).toEqual([
      { type: "done", message: { role: "assistant", content: [], stopReason: "error", errorMessage: "剧本里没有任何一条规则匹配（连兜底规则都没有）" } },
    ]);
  });

  it("剧本规则抛出的不是 Error：原样转成文字，编码成一条空的 error 消息", async () => {
    const rules: Rule[] = [{ on: "", reply: () => { throw "字符串"; } }];
    const events: StreamEvent[] = [];
    for await (const event of createFakeModel({ rules })(say("x"))) events.push(event);
    expect(events).toEqual([{ type: "done", message: { role: "assistant", content: [], stopReason: "error", errorMessage: "剧本规则出错：字符串" } }]);
  });

  it("调用编号数的是之前助手消息里的工具调用，不数文字与其他角色", () => {
    const rule: Rule = { on: "", reply: "", toolCall: { name: "calc", arguments: () => ({}) } };
    const context: Context = {
      messages: [
        { role: "user", content: "一" },
        {
          role: "assistant",
          content: [
            { type: "text", text: "先算" },
            { type: "toolCall", id: "a", name: "calc", arguments: {} },
            { type: "toolCall", id: "b", name: "calc", arguments: {} },
          ],
          stopReason: "toolUse",
        },
        { role: "toolResult", toolCallId: "a", toolName: "calc", content: "1", isError: false },
        { role: "assistant", content: [{ type: "toolCall", id: "c", name: "calc", arguments: {} }], stopReason: "toolUse" },
        { role: "user", content: "二" },
      ],
    };
    expect(decideReply(context, [rule]).toolCalls.map((call) => call.id)).toEqual(["call_4"]);
  });

  it("回复为空、只有工具调用：content 里只有调用，没有空文字块", async () => {
    const rules: Rule[] = [{ on: "", reply: "", toolCall: { name: "calc", arguments: () => ({ expression: "1" }) } }];
    const events: StreamEvent[] = [];
    for await (const event of createFakeModel({ rules })(say("x"))) events.push(event);
    expect(events).toEqual([
      {
        type: "done",
        message: { role: "assistant", content: [{ type: "toolCall", id: "call_1", name: "calc", arguments: { expression: "1" } }], stopReason: "toolUse" },
      },
    ]);
  });

  it("回复为空又出错：content 是空的", async () => {
    const rules: Rule[] = [{ on: "", reply: "", error: "坏了" }];
    const events: StreamEvent[] = [];
    for await (const event of createFakeModel({ rules })(say("x"))) events.push(event);
    expect(events).toEqual([{ type: "done", message: { role: "assistant", content: [], stopReason: "error", errorMessage: "坏了" } }]);
  });
});

describe("假模型的节奏（假时钟）", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance"] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const rules: Rule[] = [{ on: "", reply: "一二三四五六七八" }]; // 4 个 token

  it("没有 signal 也照排期吐字：第 n 个 token 在 n × delayMs", async () => {
    const start = performance.now();
    const { deltas, at, done } = await run(collect(createFakeModel({ rules, delayMs: 100 })(say("x"))));
    expect(deltas).toEqual(["一二", "三四", "五六", "七八"]);
    expect(at.map((t) => t - start)).toEqual([100, 200, 300, 400]);
    expect(done.stopReason).toBe("stop");
  });

  it("时钟不走，token 就不出来", async () => {
    const iterator = createFakeModel({ rules, delayMs: 100 })(say("x"))[Symbol.asyncIterator]();
    let got: unknown;
    void iterator.next().then((r) => (got = r.value));
    await vi.advanceTimersByTimeAsync(99);
    expect(got).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(got).toEqual({ type: "text_delta", delta: "一二" });
  });

  it("已经取消的 signal：不等定时器，立刻以 aborted 收尾", async () => {
    const controller = new AbortController();
    controller.abort();
    const stream = createFakeModel({ rules, delayMs: 100 })(say("x"), { signal: controller.signal });
    let got: unknown;
    void stream[Symbol.asyncIterator]().next().then((r) => (got = r.value));
    await vi.advanceTimersByTimeAsync(0); // 只清微任务，时钟不走
    expect(got).toEqual({ type: "done", message: { role: "assistant", content: [], stopReason: "aborted" } });
  });

  it("吐了两个 token 之后取消：已吐的文字留在 aborted 消息里", async () => {
    const controller = new AbortController();
    const iterator = createFakeModel({ rules, delayMs: 100 })(say("x"), { signal: controller.signal })[Symbol.asyncIterator]();
    expect((await run(iterator.next())).value).toEqual({ type: "text_delta", delta: "一二" });
    expect((await run(iterator.next())).value).toEqual({ type: "text_delta", delta: "三四" });
    const third = iterator.next();
    controller.abort();
    expect((await run(third)).value).toEqual({
      type: "done",
      message: { role: "assistant", content: [{ type: "text", text: "一二三四" }], stopReason: "aborted" },
    });
  });
});

describe("abortOnSchedule：取消排进同一张时间表", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance"] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const rules: Rule[] = [{ on: "", reply: "一二三四五六七八" }]; // 4 个 token：100、200、300、400 毫秒

  /** 跑一次带排期取消的假模型；记下取消发生在假时钟的哪一刻。 */
  async function scheduled(abortAtMs: number, streamFn?: StreamFn) {
    const controller = new AbortController();
    const start = performance.now();
    let abortedAt: number | undefined;
    controller.signal.addEventListener("abort", () => (abortedAt = performance.now() - start));
    const wrapped = abortOnSchedule(streamFn ?? createFakeModel({ rules, delayMs: 100 }), { delayMs: 100, abortAtMs, controller });
    const result = await run(collect(wrapped(say("x"), { signal: controller.signal })));
    return { ...result, abortedAt };
  }

  it("250 毫秒取消：留下前两个 token，取消恰在 250 毫秒", async () => {
    const { deltas, done, abortedAt } = await scheduled(250);
    expect(deltas).toEqual(["一二", "三四"]);
    expect(done).toEqual({ role: "assistant", content: [{ type: "text", text: "一二三四" }], stopReason: "aborted" });
    expect(abortedAt).toBe(250);
  });

  it("取消与 token 同一刻（200 毫秒）：那个 token 算在取消之前", async () => {
    const { deltas, abortedAt } = await scheduled(200);
    expect(deltas).toEqual(["一二", "三四"]);
    expect(abortedAt).toBe(200);
  });

  it("取消早于第一个 token：一个字也不吐", async () => {
    const { deltas, done, abortedAt } = await scheduled(50);
    expect(deltas).toEqual([]);
    expect(done).toEqual({ role: "assistant", content: [], stopReason: "aborted" });
    expect(abortedAt).toBe(50);
  });

  it("取消排在最后一个 token 之后：照样按时取消，但回复已经说完，done 仍是 stop", async () => {
    const { deltas, done, abortedAt } = await scheduled(450);
    expect(deltas).toHaveLength(4);
    expect(done.stopReason).toBe("stop");
    expect(abortedAt).toBe(450);
  });

  it("取消排在下一个 token 的时刻或更晚（500 毫秒）：done 不算 token，不取消", async () => {
    const { deltas, done, abortedAt } = await scheduled(500);
    expect(deltas).toHaveLength(4);
    expect(done.stopReason).toBe("stop");
    expect(abortedAt).toBeUndefined();
  });

  it("外面已经取消了（用户先按了 Ctrl+C）：不再按排期等，也不再取消一次", async () => {
    // 一个不看 signal 的流：看得出包装层有没有在 token 之间插进等待
    const deaf: StreamFn = async function* () {
      for (const delta of ["a", "b", "c"]) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        yield { type: "text_delta", delta };
      }
      yield { type: "done", message: { role: "assistant", content: [{ type: "text", text: "abc" }], stopReason: "stop" } };
    };
    const controller = new AbortController();
    controller.abort();
    const start = performance.now();
    const wrapped = abortOnSchedule(deaf, { delayMs: 100, abortAtMs: 250, controller });
    const { deltas, at } = await run(collect(wrapped(say("x"), { signal: controller.signal })));
    expect(deltas).toEqual(["a", "b", "c"]);
    expect(at.map((t) => t - start)).toEqual([100, 200, 300]);
  });
});
