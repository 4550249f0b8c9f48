// stream-request.ts（两个适配器共用的骨架）的边角：变异测试（npm run mutation）找出来的、别的测试没有测到的行为。
// 全部在进程内：假 fetch 直接交回构造好的 Response，不起服务器。
import { describe, expect, it } from "vitest";

import { streamRequest, type WireDecoder } from "../src/providers/stream-request.js";
import { parseChunk } from "../src/guards/json.js";
import type { StreamEvent } from "../src/types.js";

describe("stream-request 的边角", () => {
  const decoder = (): WireDecoder => ({
    onEvent: (event, reply) => reply.text(event.data),
    end: () => ({ stopReason: "stop" }),
    complete: () => false,
  });

  async function run(fetch: typeof globalThis.fetch, signal?: AbortSignal, onDelta?: () => void): Promise<StreamEvent[]> {
    const events: StreamEvent[] = [];
    for await (const event of streamRequest({ baseUrl: "http://h", apiKey: "", model: "m", fetch, maxRetries: 0 }, { path: "/x", headers: { "x-extra": "1" }, body: () => ({ a: 1 }), decoder: decoder() }, { signal })) {
      events.push(event);
      if (event.type === "text_delta") onDelta?.();
    }
    return events;
  }

  it("请求头：JSON 正文、要事件流，再加上协议自己的头", async () => {
    let headers: Record<string, string> = {};
    await run(async (_input, init) => {
      headers = init?.headers as Record<string, string>;
      return new Response("data: x\n\n", { headers: { "content-type": "text/event-stream" } });
    });
    expect(headers).toEqual({ "content-type": "application/json", accept: "text/event-stream", "x-extra": "1" });
  });

  it("没写 content-type 的响应照样当事件流读（有的本地服务不写）", async () => {
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode("data: 好\n\n"));
        controller.close();
      },
    });
    const events = await run(async () => new Response(body));
    expect(events).toEqual([
      { type: "text_delta", delta: "好" },
      { type: "done", message: { role: "assistant", content: [{ type: "text", text: "好" }], stopReason: "stop" } },
    ]);
  });

  it("最后一个事件读完时按下取消：算取消，不算正常结束", async () => {
    const controller = new AbortController();
    const events = await run(async () => new Response("data: 一\n\ndata: 二\n\n", { headers: { "content-type": "text/event-stream" } }), controller.signal, () => {
      if (!controller.signal.aborted) controller.abort();
    });
    expect(events.at(-1)).toMatchObject({ type: "done", message: { stopReason: "aborted" } });
    expect(events.at(-1)).not.toHaveProperty("message.errorMessage");
  });

  it("连接阶段（重试层里）抛出的异常说成网络错误，不说成构造请求失败", async () => {
    const events: StreamEvent[] = [];
    const fetch: typeof globalThis.fetch = async () => new Response("忙", { status: 503 });
    const onRetryWait = () => {
      throw new Error("倒计时坏了");
    };
    for await (const event of streamRequest({ baseUrl: "http://h", apiKey: "", model: "m", fetch, maxRetries: 1, onRetryWait }, { path: "/x", headers: {}, body: () => ({}), decoder: decoder() })) events.push(event);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: "done", message: { stopReason: "error" } });
    expect(events[0]?.type === "done" && events[0].message.errorMessage).toMatch(/^网络错误：倒计时坏了/);
  });

  it("200 却没有正文：说没有正文；读「不是事件流」的正文时按下取消：算取消", async () => {
    const empty = await run(async () => new Response(null, { status: 200 }));
    expect(empty).toEqual([{ type: "done", message: { role: "assistant", content: [], stopReason: "error", errorMessage: "响应没有正文" } }]);
    const controller = new AbortController();
    const body = new ReadableStream<Uint8Array>({
      pull(stream) {
        controller.abort();
        stream.enqueue(new TextEncoder().encode("<html>"));
        stream.close();
      },
    });
    const html = await run(async () => new Response(body, { headers: { "content-type": "text/html" } }), controller.signal);
    expect(html).toEqual([{ type: "done", message: { role: "assistant", content: [], stopReason: "aborted" } }]);
  });

  it("parseChunk：说明里只带数据的前 100 个字符", () => {
    const junk = "x".repeat(150);
    expect(parseChunk(junk, {})).toBe(`无法解析的流数据：${"x".repeat(100)}`);
    const data = JSON.stringify({ a: 5, pad: "y".repeat(200) });
    expect(parseChunk(data, { a: "string" })).toBe(`协议错误：数据.a 应为字符串：${data.slice(0, 100)}`);
  });
});
