/**
 * eventStreamBody 的两道防线在本进程里逐字节验证：按声明与 BOM 解码成 UTF-8、不合法的 UTF-8 只警告一次、
 * 一个事件的大小数到上限就停。wire-guards.test.ts 走真的服务器与整条流；
 * 这里把字节按指定的方式切成块交进去，看出来的字节与警告，块的边界落在哪里都能单独验证。
 */
import { afterEach, describe, expect, it, vi } from "vitest";

import { eventStreamBody, MAX_EVENT_BYTES, StreamGuardError } from "../src/providers/guards/stream.js";

afterEach(() => vi.restoreAllMocks());

/** 把这些块当成响应体交给 eventStreamBody，读出的块（或读到的错误）与打印的警告。 */
async function read(contentType: string | undefined, chunks: Array<Uint8Array | string>): Promise<{ parts: Uint8Array[]; warnings: string[]; error?: unknown }> {
  const warnings: string[] = [];
  vi.spyOn(console, "warn").mockImplementation((...args: unknown[]) => void warnings.push(args.join(" ")));
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(typeof chunk === "string" ? encoder.encode(chunk) : chunk);
      controller.close();
    },
  });
  const headers: Record<string, string> = contentType === undefined ? {} : { "content-type": contentType };
  const parts: Uint8Array[] = [];
  try {
    const reader = eventStreamBody(new Response(null, { headers }), body)!.getReader();
    for (let next = await reader.read(); !next.done; next = await reader.read()) parts.push(next.value);
  } catch (error) {
    return { parts, warnings, error };
  }
  return { parts, warnings };
}

/** 小的正文：出来的全部字节摊成数组，连同警告一起比较。 */
async function run(contentType: string | undefined, chunks: Array<Uint8Array | string>): Promise<{ bytes: number[]; warnings: string[]; error?: unknown }> {
  const { parts, warnings, error } = await read(contentType, chunks);
  const bytes = parts.flatMap((part) => [...part]);
  return error === undefined ? { bytes, warnings } : { bytes, warnings, error };
}

const utf8 = (text: string): number[] => [...new TextEncoder().encode(text)];
const NOT_UTF8_NO_CHARSET = "[警告] 模型服务发来的字节不是合法的 UTF-8（content-type 没有写 charset）：文字可能显示成乱码。如果它用的是 gbk 等编码，请让服务在 content-type 里写明 charset";
const NOT_UTF8_SAID_UTF8 = "[警告] 模型服务发来的字节不是合法的 UTF-8（content-type 说是 UTF-8）：文字可能显示成乱码。如果它用的是 gbk 等编码，请让服务在 content-type 里写明 charset";
/** 「你好」的 GBK 编码。 */
const GBK_NIHAO = new Uint8Array([0xc4, 0xe3, 0xba, 0xc3]);

describe("字符集：照声明解码，交给下游的总是 UTF-8", () => {
  it.each([
    ["没写 charset", "text/event-stream"],
    ["没有 content-type", undefined],
    ["charset=utf-8", "text/event-stream; charset=utf-8"],
    ["charset=UTF-8（大写）", "text/event-stream; charset=UTF-8"],
    ["charset=utf8", "text/event-stream; charset=utf8"],
  ])("%s：合法的 UTF-8 原样放行，不警告", async (_label, type) => {
    expect(await run(type, ["data: 你好\n\n"])).toEqual({ bytes: utf8("data: 你好\n\n"), warnings: [] });
  });

  it.each([
    ["charset=gbk", "text/event-stream; charset=gbk"],
    ["charset=\"GBK\"（引号、大写）", 'text/event-stream; charset="GBK"'],
    ["charset = gbk（等号两边有空格）", "text/event-stream; charset = gbk"],
  ])("%s：按 GBK 解码", async (_label, type) => {
    expect(await run(type, [GBK_NIHAO])).toEqual({ bytes: utf8("你好"), warnings: [] });
  });

  it("没写 charset、字节不是 UTF-8：原样放行，警告一次（说没写 charset）", async () => {
    const result = await run("text/event-stream", [GBK_NIHAO, GBK_NIHAO]);
    expect(result).toEqual({ bytes: [...GBK_NIHAO, ...GBK_NIHAO], warnings: [NOT_UTF8_NO_CHARSET] });
  });

  it.each(["charset=utf-8", "charset=UTF-8", "charset=utf8"])("写了 %s、字节却不是：照样只警告一次（说 content-type 说是 UTF-8）", async (charset) => {
    const result = await run(`text/event-stream; ${charset}`, [GBK_NIHAO, GBK_NIHAO]);
    expect(result).toEqual({ bytes: [...GBK_NIHAO, ...GBK_NIHAO], warnings: [NOT_UTF8_SAID_UTF8] });
  });

  it("一个汉字的字节被切在两个块里：不是错误，不警告", async () => {
    // 切在第 2 个字节之后：前两个字节要先凑够了看 BOM，切得更早的话两块会先被拼起来
    const bytes = utf8("a你");
    expect(await run(undefined, [new Uint8Array(bytes.slice(0, 2)), new Uint8Array(bytes.slice(2))])).toEqual({ bytes, warnings: [] });
  });

  it("不认识的字符集：一句说明，名字与 content-type 都截短", async () => {
    const name = "x".repeat(50);
    const type = `text/event-stream; charset=${name}; ${"p".repeat(120)}`;
    const result = await run(type, ["data: 1\n\n"]);
    expect(result.error).toBeInstanceOf(StreamGuardError);
    expect((result.error as Error).message).toBe(`服务器声明的字符集 ${"x".repeat(40)} 不认识，读不了这个流（content-type: ${type.slice(0, 100)}）`);
  });
});

describe("UTF-16 的 BOM：没声明或声明成 UTF-8 也照 BOM 解码", () => {
  const le = (text: string): number[] => [...text].flatMap((ch) => [ch.charCodeAt(0) & 0xff, ch.charCodeAt(0) >> 8]);
  const be = (text: string): number[] => [...text].flatMap((ch) => [ch.charCodeAt(0) >> 8, ch.charCodeAt(0) & 0xff]);

  it.each([
    ["FF FE：UTF-16LE", [0xff, 0xfe, ...le("好")]],
    ["FE FF：UTF-16BE", [0xfe, 0xff, ...be("好")]],
  ])("%s", async (_label, bytes) => {
    expect(await run(undefined, [new Uint8Array(bytes)])).toEqual({ bytes: utf8("好"), warnings: [] });
    expect(await run("text/event-stream; charset=utf-8", [new Uint8Array(bytes)])).toEqual({ bytes: utf8("好"), warnings: [] });
  });

  it("BOM 被切在两个块里，一个字符也被切开：照样拼起来解码", async () => {
    const bytes = [0xff, 0xfe, ...le("你好")];
    const chunks = [[0xff], [0xfe, bytes[2]!], bytes.slice(3, 5), bytes.slice(5)].map((part) => new Uint8Array(part));
    expect(await run(undefined, chunks)).toEqual({ bytes: utf8("你好"), warnings: [] });
  });

  it("正文只有一个 BOM：什么也不交给下游", async () => {
    expect(await run(undefined, [new Uint8Array([0xff, 0xfe])])).toEqual({ bytes: [], warnings: [] });
  });

  it("UTF-16 的正文在半个字符处结束：那半个说成 U+FFFD", async () => {
    expect(await run(undefined, [new Uint8Array([0xff, 0xfe, ...le("好"), 0x41])])).toEqual({ bytes: utf8("好\ufffd"), warnings: [] });
  });

  it.each([
    ["FF 后面不是 FE", [0xff, 0x41, 0x42]],
    ["FE 后面不是 FF", [0xfe, 0x41, 0x42]],
    ["FE 在第二个字节", [0x41, 0xfe, 0x42, 0x00]],
    ["FF 在第二个字节", [0x41, 0xff, 0x00, 0x42]],
  ])("%s：不是 BOM，原样放行（不是 UTF-8，警告）", async (_label, bytes) => {
    expect(await run(undefined, [new Uint8Array(bytes)])).toEqual({ bytes, warnings: [NOT_UTF8_NO_CHARSET] });
  });

  it("整个正文只有一个字节：等不到第二个字节，原样交出", async () => {
    expect(await run(undefined, ["a"])).toEqual({ bytes: utf8("a"), warnings: [] });
  });
});

describe("一个事件的大小：数到上限就停", () => {
  const TOO_LONG = `回复太长：一个事件超过上限 ${MAX_EVENT_BYTES.toLocaleString("en-US")} 字节还没结束，已停止接收`;
  const filler = (size: number): Uint8Array => new Uint8Array(size).fill(0x61);
  /** 先送满上限那么多字节，再送 tail：tail 之后还在同一个事件里，就超了上限。 */
  async function afterFullEvent(tail: string): Promise<"停下" | "放行"> {
    const result = await read(undefined, [filler(MAX_EVENT_BYTES), `${tail}a`]);
    if (result.error === undefined) return "放行";
    expect(result.error).toBeInstanceOf(StreamGuardError);
    expect((result.error as Error).message).toBe(TOO_LONG);
    return "停下";
  }

  it("正好上限那么多字节：放行；多一个字节：停下", async () => {
    const full = await read(undefined, [filler(MAX_EVENT_BYTES)]);
    expect(full.error).toBeUndefined();
    expect(full.parts.reduce((sum, part) => sum + part.length, 0)).toBe(MAX_EVENT_BYTES);
    const over = await read(undefined, [filler(MAX_EVENT_BYTES + 1)]);
    expect((over.error as Error).message).toBe(TOO_LONG);
  });

  it.each([
    ["\n\n", "放行"],
    ["\r\r", "放行"],
    ["\r\n\r\n", "放行"],
    ["\r\n\n", "放行"],
    ["\n\r\n", "放行"],
    ["\n", "停下"],
    ["\r", "停下"],
    ["\r\n", "停下"],
  ])("上限之后跟着 %j：%s", async (tail, expected) => {
    expect(await afterFullEvent(tail)).toBe(expected);
  });
});
