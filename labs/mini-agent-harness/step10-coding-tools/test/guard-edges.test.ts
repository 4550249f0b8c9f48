/**
 * 护栏的边角（变异测试找出来的，见 scripts/mutation/）：取消的原因一路传下去、
 * 哪些时限不计时、上层先取消时定时器到点也不算超时、收到 done 就不再读底层。
 * 全部用假时钟，不起服务器、不真等。
 */
import { getEventListeners } from "node:events";
import { afterEach, describe, expect, it, vi } from "vitest";

import { guardCall, reportChunks, reportHeaders, withModelTimeout } from "../src/guard.js";
import type { AssistantMessage, StreamEvent, StreamFn } from "../src/types.js";

afterEach(() => {
  vi.useRealTimers();
});

const reply: AssistantMessage = { role: "assistant", content: [{ type: "text", text: "好" }], stopReason: "stop" };

async function drain(stream: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const events: StreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

describe("guardCall 的边角", () => {
  it("上层取消：这次调用的信号带着上层的原因，ended 随之 resolve", async () => {
    const parent = new AbortController();
    const guard = guardCall(parent.signal, undefined);
    const reason = new Error("用户按了 Ctrl+C");
    parent.abort(reason);
    expect(guard.signal.reason).toBe(reason);
    expect(getEventListeners(parent.signal, "abort")).toHaveLength(0); // 监听只用一次：还没 dispose 也已经摘掉
    await guard.ended; // 没 resolve 的话测试会卡住直到超时
    guard.dispose();
  });

  it("上层早就取消了：一开始就是取消状态（带原因），ended 立刻 resolve，也不再往上层挂监听", async () => {
    const parent = new AbortController();
    parent.abort("早就取消了");
    const guard = guardCall(parent.signal, 60_000);
    expect(guard.signal.aborted).toBe(true);
    expect(guard.signal.reason).toBe("早就取消了");
    expect(getEventListeners(parent.signal, "abort")).toHaveLength(0);
    await guard.ended;
    guard.dispose();
  });

  it.each([0, -1, Number.NaN, Number.POSITIVE_INFINITY, undefined])("时限 %s：不设定时器，永远不超时", (ms) => {
    vi.useFakeTimers();
    const guard = guardCall(undefined, ms);
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(10 ** 9);
    expect(guard.signal.aborted).toBe(false);
    expect(guard.timedOut()).toBe(false);
    guard.dispose();
  });

  it("到点：原因说明超时多久，只到点一次；dispose 清掉定时器", async () => {
    vi.useFakeTimers();
    const guard = guardCall(undefined, 250);
    expect(vi.getTimerCount()).toBe(1);
    await vi.advanceTimersByTimeAsync(250);
    await guard.expired;
    expect(guard.timedOut()).toBe(true);
    expect((guard.signal.reason as Error).message).toBe("超时（250ms）");
    guard.dispose();

    const early = guardCall(undefined, 250);
    early.dispose();
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(1000);
    expect(early.signal.aborted).toBe(false);
    expect(early.timedOut()).toBe(false);
  });

  it("上层先取消、还没 dispose 时定时器到点：那是取消，不是超时；expired 不会 resolve", async () => {
    vi.useFakeTimers();
    const parent = new AbortController();
    const guard = guardCall(parent.signal, 100);
    let expired = false;
    void guard.expired.then(() => (expired = true));
    parent.abort();
    await vi.advanceTimersByTimeAsync(200);
    expect(guard.timedOut()).toBe(false);
    expect(expired).toBe(false);
    guard.dispose();
  });
});

describe("withModelTimeout 的边角", () => {
  it.each([-5, Number.NaN, Number.POSITIVE_INFINITY])("时限 %s：原样返回，不包装", (ms) => {
    const stream: StreamFn = async function* () {};
    expect(withModelTimeout(stream, ms)).toBe(stream);
  });

  it("收到 done 就结束：底层在 done 之后还想说的不再读，它的 finally 照样执行", async () => {
    let cleaned = false;
    let readAfterDone = false;
    const chatty: StreamFn = async function* () {
      try {
        yield { type: "text_delta", delta: "好" };
        yield { type: "done", message: reply };
        readAfterDone = true;
        yield { type: "text_delta", delta: "多余的" };
      } finally {
        cleaned = true;
      }
    };
    vi.useFakeTimers();
    const events = await drain(withModelTimeout(chatty, 1_000)({ messages: [] }));
    expect(events).toEqual([{ type: "text_delta", delta: "好" }, { type: "done", message: reply }]);
    expect(readAfterDone).toBe(false);
    expect(cleaned).toBe(true);
    expect(vi.getTimerCount()).toBe(0); // 计时器随之清掉
  });

  it("底层没给 done 就结束了：原样结束（由循环补错误消息），不会再去 return 一个已经结束的迭代器", async () => {
    const returned = vi.fn();
    const iterator: AsyncIterator<StreamEvent> = {
      next: async () => ({ done: true, value: undefined }),
      return: async () => {
        returned();
        return { done: true, value: undefined };
      },
    };
    const silent: StreamFn = () => ({ [Symbol.asyncIterator]: () => iterator });
    vi.useFakeTimers();
    expect(await drain(withModelTimeout(silent, 1_000)({ messages: [] }))).toEqual([]);
    expect(returned).not.toHaveBeenCalled();
    expect(vi.getTimerCount()).toBe(0);
  });

  it("调用方只读一个事件就不读了：底层也被收尾，计时器清掉，上层信号上不留监听", async () => {
    let cleaned = false;
    const long: StreamFn = async function* () {
      try {
        for (;;) yield { type: "text_delta", delta: "字" };
      } finally {
        cleaned = true;
      }
    };
    vi.useFakeTimers();
    const parent = new AbortController();
    for await (const event of withModelTimeout(long, 1_000)({ messages: [] }, { signal: parent.signal })) {
      expect(event).toEqual({ type: "text_delta", delta: "字" });
      break;
    }
    await vi.advanceTimersByTimeAsync(0);
    expect(cleaned).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
    expect(getEventListeners(parent.signal, "abort")).toHaveLength(0);
  });

  it("底层拿到的是这次调用自己的信号：到点时它被取消，上层不受影响", async () => {
    vi.useFakeTimers();
    let seen: AbortSignal | undefined;
    const waiting: StreamFn = async function* (_context, options) {
      seen = options?.signal;
      await new Promise((resolve) => options?.signal?.addEventListener("abort", resolve));
      yield { type: "done", message: { role: "assistant", content: [], stopReason: "aborted" } };
    };
    const parent = new AbortController();
    const pending = drain(withModelTimeout(waiting, 300)({ messages: [] }, { signal: parent.signal }));
    await vi.advanceTimersByTimeAsync(300);
    const events = await pending;
    expect(seen).toBeDefined();
    expect(seen).not.toBe(parent.signal);
    expect(seen!.aborted).toBe(true);
    expect(parent.signal.aborted).toBe(false);
    expect(events).toEqual([{ type: "done", message: { role: "assistant", content: [], stopReason: "error", errorMessage: "模型调用超时（300ms）" } }]);
  });

  it("超时收尾的消息只留正文：推理增量不算进已经流出的文字", async () => {
    vi.useFakeTimers();
    const thinkingThenHang: StreamFn = async function* () {
      yield { type: "thinking_delta", delta: "想一想" };
      yield { type: "text_delta", delta: "答" };
      await new Promise(() => {});
    };
    const pending = drain(withModelTimeout(thinkingThenHang, 100)({ messages: [] }));
    await vi.advanceTimersByTimeAsync(100);
    const events = await pending;
    expect(events.at(-1)).toEqual({
      type: "done",
      message: { role: "assistant", content: [{ type: "text", text: "答" }], stopReason: "error", errorMessage: "模型调用超时（100ms）" },
    });
  });

  it("底层的迭代器没有 return 方法：收到 done 之后照样正常结束", async () => {
    let calls = 0;
    const iterator: AsyncIterator<StreamEvent> = {
      next: async () => (calls++ === 0 ? { done: false, value: { type: "done", message: reply } } : { done: true, value: undefined }),
    };
    const bare: StreamFn = () => ({ [Symbol.asyncIterator]: () => iterator });
    vi.useFakeTimers();
    expect(await drain(withModelTimeout(bare, 1_000)({ messages: [] }))).toEqual([{ type: "done", message: reply }]);
  });
});

describe("空闲时钟的两只耳朵", () => {
  it("reportHeaders：拿到响应才报一次（请求发出去时不报）；没有 onActivity 时原样返回 fetch", async () => {
    const heard: string[] = [];
    const response = new Response("x");
    const doFetch: typeof fetch = async () => {
      heard.push("fetch 返回之前");
      return response;
    };
    expect(reportHeaders(doFetch, undefined)).toBe(doFetch);
    expect(await reportHeaders(doFetch, () => heard.push("报一次"))("http://h")).toBe(response);
    expect(heard).toEqual(["fetch 返回之前", "报一次"]);
  });

  it("reportChunks：每一块报一次，字节原样放行；没有 onActivity 时原样返回", async () => {
    let heard = 0;
    const body = new Response(new Blob([new Uint8Array([1, 2]), new Uint8Array([3])]).stream()).body!;
    expect(reportChunks(body, undefined)).toBe(body);
    const chunks: number[][] = [];
    const reader = reportChunks(new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new Uint8Array([1, 2]));
        controller.enqueue(new Uint8Array([3]));
        controller.close();
      },
    }), () => heard++).getReader();
    for (let next = await reader.read(); !next.done; next = await reader.read()) chunks.push([...next.value]);
    expect(chunks).toEqual([[1, 2], [3]]);
    expect(heard).toBe(2);
  });
});
