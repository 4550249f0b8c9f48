import { describe, expect, it } from "vitest";
import { readSse, SseParser, type SseEvent } from "../src/sse.js";

const encoder = new TextEncoder();

/** 把若干块（字符串或字节）依次喂给一个新解析器，收集全部事件。 */
function parse(...chunks: Array<string | Uint8Array>): SseEvent[] {
  const parser = new SseParser();
  const out: SseEvent[] = [];
  for (const chunk of chunks) out.push(...parser.feed(typeof chunk === "string" ? encoder.encode(chunk) : chunk));
  parser.end();
  return out;
}

/** 逐字节喂入。 */
function parseBytewise(text: string): SseEvent[] {
  const bytes = encoder.encode(text);
  return parse(...Array.from(bytes, (_, i) => bytes.subarray(i, i + 1)));
}

const msg = (data: string, event = "message", id = ""): SseEvent => ({ event, data, id });

// 一段覆盖各种情况的事件流：CRLF、单独的 CR、注释、多行 data、无空格、无冒号、中文与 emoji
const SAMPLE =
  ": 注释\r\n" +
  "event: greet\r\n" +
  "data: 你好\r\n" +
  "data:世界 😀\r\n" +
  "\r\n" +
  "id: 7\r" +
  "data\r" +
  "\r" +
  "data:  two spaces\n" +
  "\n" +
  "data: [DONE]\n\n" +
  "data: unterminated";

const SAMPLE_EVENTS = [
  msg("你好\n世界 😀", "greet"),
  msg("", "message", "7"),
  msg(" two spaces", "message", "7"),
  msg("[DONE]", "message", "7"),
];

describe("SseParser", () => {
  it("LF、CRLF、单独的 CR 三种行尾得到同样的事件", () => {
    const body = "event: a\ndata: 1\ndata: 2\n\ndata: 3\n\n";
    const expected = [msg("1\n2", "a"), msg("3")];
    expect(parse(body)).toEqual(expected);
    expect(parse(body.replaceAll("\n", "\r\n"))).toEqual(expected);
    expect(parse(body.replaceAll("\n", "\r"))).toEqual(expected);
  });

  it("CR 在上一块末尾、LF 在下一块开头：合起来只算一个行尾", () => {
    // 若误算成两个行尾，中间会多出一个空行，"a" 会被提前单独派发
    expect(parse("data: a\r", "\ndata: b\r\n\r\n")).toEqual([msg("a\nb")]);
    // 反过来，两个 CR 就是两个行尾（一个空行）
    expect(parse("data: a\r", "\rdata: b\r\r")).toEqual([msg("a"), msg("b")]);
    // CR 与 LF 之间夹着一个空块：等待 LF 的状态不能被空块清掉
    expect(parse("data: a\r", new Uint8Array(0), "\ndata: b\n\n")).toEqual([msg("a\nb")]);
    // CR 之后来的是被切成两半的「中」：半个字符解码为空，不能据此判断；「中」不是 LF，另起一行
    const zhong = encoder.encode("中");
    expect(parse("data: x\r", zhong.subarray(0, 1), zhong.subarray(1), ":\r\r")).toEqual([msg("x")]);
  });

  it("注释行被忽略；冒号后的空格可有可无，只去掉一个", () => {
    expect(parse(": ping\n:\ndata:a\ndata: b\ndata:  c\n\n")).toEqual([msg("a\nb\n c")]);
  });

  it("冒号后没有空格的单行事件（data:x 紧跟空行）：值一个字符也不少", () => {
    // 最常见的形状：一行 data 加一个空行。少取或多去一个字符，这里都会失败
    expect(parse("data:x\n\n")).toEqual([msg("x")]);
    expect(parse("data:x\r\n\r\n", "data:yz\r\rdata:\n\n")).toEqual([msg("x"), msg("yz"), msg("")]);
    expect(parseBytewise("event:e\ndata:x\n\n")).toEqual([msg("x", "e")]);
  });

  it("没有冒号的行：整行是字段名，值为空", () => {
    expect(parse("data\n\n")).toEqual([msg("")]);
    expect(parse("data\ndata\n\n")).toEqual([msg("\n")]);
    expect(parse("event\ndata: x\n\n")).toEqual([msg("x")]);
  });

  it("没有 data 的事件不派发；event 类型随之清空", () => {
    expect(parse("event: ping\n\n", "data: x\n\n")).toEqual([msg("x")]);
    expect(parse("\n\n\n")).toEqual([]);
  });

  it("id 跨事件保留，含 NUL 的 id 被忽略；retry 只认纯数字；其他字段忽略", () => {
    const parser = new SseParser();
    const events = parser.feed(encoder.encode("id: 1\nretry: 3000\nfoo: bar\ndata: a\n\nid: 2\0\nretry: 5s\ndata: b\n\nid\ndata: c\n\n"));
    expect(events).toEqual([msg("a", "message", "1"), msg("b", "message", "1"), msg("c", "message", "")]);
    expect(parser.retry).toBe(3000);
  });

  it("流结束时没被空行收尾的事件一律丢弃", () => {
    expect(parse("data: a\n\ndata: b")).toEqual([msg("a")]);
    expect(parse("data: a\n\ndata: b\n")).toEqual([msg("a")]);
    expect(parse("data: a\n\nevent: x\ndata: b\r")).toEqual([msg("a")]);
  });

  it("[DONE] 只是普通的 data 值", () => {
    expect(parse("data: [DONE]\n\n")).toEqual([msg("[DONE]")]);
  });

  it("开头的 BOM 被去掉；非法 UTF-8 变成替换字符而不是抛异常", () => {
    expect(parse(new Uint8Array([0xef, 0xbb, 0xbf]), "data: a\n\n")).toEqual([msg("a")]);
    expect(parse(new Uint8Array([...encoder.encode("data: "), 0xff, 0x0a, 0x0a]))).toEqual([msg("\uFFFD")]);
  });

  it("逐字节喂入（三字节的中文、四字节的 emoji 都被切开）结果不变", () => {
    expect(parse(SAMPLE)).toEqual(SAMPLE_EVENTS);
    expect(parseBytewise(SAMPLE)).toEqual(SAMPLE_EVENTS);
  });

  it("在任意一个字节处切成两块，结果都不变", () => {
    const bytes = encoder.encode(SAMPLE);
    for (let i = 0; i <= bytes.length; i++) {
      expect(parse(bytes.subarray(0, i), bytes.subarray(i)), `切在第 ${i} 字节`).toEqual(SAMPLE_EVENTS);
    }
  });

  it("在任意两处切成三块，结果都不变", () => {
    const bytes = encoder.encode("data: 中\r\n\r\ndata:文\r\rdata\n\n");
    const expected = [msg("中"), msg("文"), msg("")];
    for (let i = 0; i <= bytes.length; i++) {
      for (let j = i; j <= bytes.length; j++) {
        expect(parse(bytes.subarray(0, i), bytes.subarray(i, j), bytes.subarray(j))).toEqual(expected);
      }
    }
  });

  it("很长的一行被切成许多块也能拼回来", () => {
    const long = "字".repeat(50_000);
    const bytes = encoder.encode(`data: ${long}\n\n`);
    const chunks: Uint8Array[] = [];
    for (let i = 0; i < bytes.length; i += 1000) chunks.push(bytes.subarray(i, i + 1000));
    expect(parse(...chunks)).toEqual([msg(long)]);
  });

  it("单行 data:x（冒号后没有空格，很多服务商这样发）紧跟空行：值一个字符也不少", () => {
    // 最常见的形状：一行 data 加一个空行。不论解析器走不走捷径，值都必须是冒号后的全部文字
    expect(parse("data:x\n\n")).toEqual([msg("x")]);
    expect(parse("data:xy\n\ndata:z\n\n")).toEqual([msg("xy"), msg("z")]);
    expect(parse('data:{"a":1}\n\n')).toEqual([msg('{"a":1}')]);
    expect(parse("event: delta\ndata:x\n\n")).toEqual([msg("x", "delta")]);
    expect(parse("data:x\r\n\r\n", "data:y\r\r")).toEqual([msg("x"), msg("y")]);
    expect(parse("data:\n\n")).toEqual([msg("")]);
    // 被切在任意一个字节处（包括冒号前后、空行中间）也一样
    const bytes = encoder.encode("data:x\n\ndata:中\n\n");
    for (let i = 0; i <= bytes.length; i++) {
      expect(parse(bytes.subarray(0, i), bytes.subarray(i)), `切在第 ${i} 字节`).toEqual([msg("x"), msg("中")]);
    }
  });
});

describe("readSse", () => {
  function streamOf(chunks: string[]): ReadableStream<Uint8Array> {
    return new ReadableStream({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
        controller.close();
      },
    });
  }

  it("把字节流读成事件，结尾的半个事件丢弃", async () => {
    const events: SseEvent[] = [];
    for await (const event of readSse(streamOf(["event: a\nda", "ta: 1\n", "\ndata: 2\n\ndata: 3"]))) events.push(event);
    expect(events).toEqual([msg("1", "a"), msg("2")]);
  });

  it("signal 触发后不再等待：抛出取消原因", async () => {
    const controller = new AbortController();
    // 一个先给一个事件、然后永远不再给数据的流
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(encoder.encode("data: first\n\n"));
      },
    });
    const seen: string[] = [];
    const run = (async () => {
      for await (const event of readSse(body, controller.signal)) {
        seen.push(event.data);
        setTimeout(() => controller.abort(), 5);
      }
    })();
    await expect(run).rejects.toMatchObject({ name: "AbortError" });
    expect(seen).toEqual(["first"]);
  });
});
