/**
 * SSE 解析器的边角：end() 之后从头开始、注释与空行。这些测试来自变异测试（npm run mutation）。
 */
import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { readSse, SseParser, type SseEvent } from "../src/sse.js";

const encoder = new TextEncoder();
const bytes = (text: string): Uint8Array => encoder.encode(text);
const msg = (data: string, event = "message", id = ""): SseEvent => ({ event, data, id });

describe("SseParser.end：一个流结束，下一个流从干净的状态开始", () => {
  it("没收尾的 data、event、半行、半个字符都不会漏进下一个流", () => {
    const parser = new SseParser();
    expect(parser.feed(bytes("event: old\ndata: 半个事件\n"))).toEqual([]);
    parser.end();
    expect(parser.feed(bytes("\n"))).toEqual([]); // 上一个流攒下的 data 已经丢弃
    expect(parser.feed(bytes("data: x\n\n"))).toEqual([msg("x")]); // event 也回到缺省的 message

    expect(parser.feed(bytes("data: 没有行尾的半行"))).toEqual([]);
    parser.end();
    expect(parser.feed(bytes("data: y\n\n"))).toEqual([msg("y")]);

    const zhong = bytes("中");
    expect(parser.feed(zhong.subarray(0, 2))).toEqual([]); // 半个字符留在解码器里
    parser.end();
    expect(parser.feed(bytes("data: z\n\n"))).toEqual([msg("z")]);
  });

  it("最近一次的 id 跨过 end() 保留（标准里它跨重连保留，重连时作为 Last-Event-ID 发回）", () => {
    const parser = new SseParser();
    parser.feed(bytes("id: 7\ndata: a\n\n"));
    parser.end();
    expect(parser.feed(bytes("data: b\n\n"))).toEqual([msg("b", "message", "7")]);
  });
});

describe("SseParser：retry 字段", () => {
  it("只有名为 retry、值全是数字的字段才改重连间隔", () => {
    const parser = new SseParser();
    parser.feed(bytes("retry: 1000\nfoo: 5000\nretry: a1\nretry: 1x\nretry:\ndata: a\n\n"));
    expect(parser.retry).toBe(1000);
    parser.feed(bytes("retry:250\n\n"));
    expect(parser.retry).toBe(250);
  });
});

describe("readSse：读完或提前不读，都把身后收拾干净", () => {
  /** 一个记下自己有没有被取消的流：先给 chunks，然后一直等（像一个没关的连接）。 */
  function openStream(chunks: string[]): { body: ReadableStream<Uint8Array>; cancelled: () => boolean } {
    let cancelled = false;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(bytes(chunk));
      },
      cancel() {
        cancelled = true;
      },
    });
    return { body, cancelled: () => cancelled };
  }

  it("调用方读到第一个事件就不读了：响应体被取消（连接才会被释放），信号上不留监听器", async () => {
    const controller = new AbortController();
    const { body, cancelled } = openStream(["data: a\n\ndata: b\n\n"]);
    for await (const event of readSse(body, controller.signal)) {
      expect(event.data).toBe("a");
      break;
    }
    expect(cancelled()).toBe(true);
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });

  it("同一个信号先后读很多个流：每读完一个就摘掉自己的监听器", async () => {
    const controller = new AbortController();
    for (let i = 0; i < 3; i++) {
      const body = new ReadableStream<Uint8Array>({
        start(c) {
          c.enqueue(bytes(`data: ${i}\n\n`));
          c.close();
        },
      });
      const seen: string[] = [];
      for await (const event of readSse(body, controller.signal)) seen.push(event.data);
      expect(seen).toEqual([String(i)]);
    }
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });
});
