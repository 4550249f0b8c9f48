/**
 * 线路上的几种坏情形（issue 31 第 8、12 条）：服务器用 helpers/raw-server.ts 手造。
 *   - 收尾事件到了，连接随后出错（Content-Length 写多了）：回复是完整的，不算失败；
 *   - 没完没了的流：回复有上限，到了就停，说出上限；
 *   - 声明了别的字符集（gbk、UTF-16）：照声明解码；不是 UTF-8 又没声明时警告一次，不悄悄显示乱码。
 */
import type http from "node:http";
import { describe, expect, it, vi } from "vitest";

import { createAnthropicStream } from "../src/providers/anthropic-messages.js";
import { createOpenAIStream } from "../src/providers/openai-completions.js";
import { ReplyBuilder } from "../src/providers/reply.js";
import { MAX_EVENT_BYTES, MAX_REPLY_CHARS } from "../src/providers/guards/stream.js";
import type { ToolSpec } from "../src/types.js";
import { collect, KEY } from "./helpers/providers.js";
import { ANTHROPIC_ANSWER, OPENAI_ANSWER } from "./helpers/recordings.js";
import { rawServers, sseText } from "./helpers/raw-server.js";

const serve = rawServers();

const openai = (origin: string) => createOpenAIStream({ baseUrl: origin, apiKey: KEY, model: "m" });
const anthropic = (origin: string) => createAnthropicStream({ baseUrl: origin, apiKey: KEY, model: "m" });

/** 写完整个正文，但 Content-Length 多报了 100 字节，然后断开：fetch 读到最后会报「other side closed」。 */
function completeThenCut(body: string) {
  return (_req: unknown, res: http.ServerResponse): void => {
    res.writeHead(200, { "content-type": "text/event-stream", "content-length": String(Buffer.byteLength(body) + 100) });
    res.write(body, () => res.socket?.destroy());
  };
}

describe("收尾事件之后连接出错：回复已经完整，照常结束", () => {
  it("OpenAI：[DONE] 之后连接断开（Content-Length 写多了）", async () => {
    const server = await serve(completeThenCut(OPENAI_ANSWER));
    const { message, deltas } = await collect(openai(server.origin));
    expect(message.stopReason).toBe("stop");
    expect(message.errorMessage).toBeUndefined();
    expect(deltas.join("")).toBe("转好了：HELLO WORLD");
  });

  it("Anthropic：message_stop 之后连接断开", async () => {
    const server = await serve(completeThenCut(ANTHROPIC_ANSWER));
    const { message, deltas } = await collect(anthropic(server.origin));
    expect(message.stopReason).toBe("stop");
    expect(deltas.join("")).toBe("6 乘 7 等于 42。");
  });

  it("收尾事件之前断开的，仍是「流在结束前中断」", async () => {
    const server = await serve(completeThenCut(OPENAI_ANSWER.replace("data: [DONE]\n\n", "").replace(/data: \{[^\n]*"finish_reason":"stop"[^\n]*\n\n/, "")));
    const { message } = await collect(openai(server.origin));
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toContain("流在结束前中断");
  });
});

/** 一直发文字、永不收尾的服务器；连接被客户端关掉时 closed 兑现。 */
async function endlessServer(chunk: (text: string) => string) {
  let resolveClosed: () => void = () => {};
  const closed = new Promise<void>((resolve) => (resolveClosed = resolve));
  const piece = "无".repeat(64 * 1024);
  const server = await serve((_req, res) => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.on("close", resolveClosed);
    const pump = (): void => {
      while (!res.destroyed && res.write(chunk(piece)));
      if (!res.destroyed) res.once("drain", pump);
    };
    pump();
  });
  return { server, closed };
}

describe("回复有上限：没完没了的流到上限就停，说出上限", () => {
  it("OpenAI：文字无穷无尽 → error，说明里有上限；已收到的文字留着；连接被关掉", async () => {
    const { server, closed } = await endlessServer((text) => sseText([{ data: { choices: [{ delta: { content: text } }] } }]));
    const { message } = await collect(openai(server.origin));
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toContain("回复太长：超过上限");
    expect(message.errorMessage).toContain(MAX_REPLY_CHARS.toLocaleString("en-US"));
    expect(message.errorMessage).not.toContain("流在结束前中断");
    const text = message.content.map((block) => (block.type === "text" ? block.text.length : 0)).reduce((a, b) => a + b, 0);
    expect(text).toBeGreaterThan(0);
    expect(text).toBeLessThanOrEqual(MAX_REPLY_CHARS);
    await closed;
  });

  it("工具参数也算在内：超过上限的那一段不收，停在上限之内", () => {
    const reply = new ReplyBuilder([]);
    reply.text("开头");
    const draft = reply.tool("#0", "t1");
    reply.toolArgs(draft, "x".repeat(MAX_REPLY_CHARS - 2));
    expect(() => reply.toolArgs(draft, "y")).toThrow(/回复太长：超过上限 8,000,000 个字符/);
    expect(draft.json).not.toContain("y");
    expect(reply.finish("error", "停").content).toEqual([{ type: "text", text: "开头" }]);
  });

  it("一个永不换行的事件：同样在上限处停下", async () => {
    const { server, closed } = await endlessServer((text) => text);
    const { message } = await collect(openai(server.origin));
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toContain(`一个事件超过上限 ${MAX_EVENT_BYTES.toLocaleString("en-US")} 字节`);
    await closed;
  });
});

describe("字符集：照响应声明的解码；没声明又不是 UTF-8 时警告", () => {
  const hello = (text: string): string => sseText([{ data: { choices: [{ delta: { content: text }, finish_reason: "stop" }] } }, { data: "[DONE]" }]);

  it("charset=gbk：中文照常显示", async () => {
    const body = hello("你好，世界");
    const server = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream; charset=gbk" });
      res.end(encodeGbk(body));
    });
    const { message, deltas } = await collect(openai(server.origin));
    expect(message.stopReason).toBe("stop");
    expect(deltas.join("")).toBe("你好，世界");
  });

  it("charset=utf-16le（带 BOM）：照常显示", async () => {
    const body = hello("你好");
    const server = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream; charset=utf-16le" });
      res.end(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(body, "utf16le")]));
    });
    const { deltas } = await collect(openai(server.origin));
    expect(deltas.join("")).toBe("你好");
  });

  it.each([
    ["UTF-16LE", [0xff, 0xfe], (text: string) => Buffer.from(text, "utf16le")],
    ["UTF-16BE", [0xfe, 0xff], (text: string) => Buffer.from(text, "utf16le").swap16()],
  ] as const)("没声明字符集、正文以 %s 的 BOM 开头：照 BOM 解码，不警告", async (_label, bom, encode) => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    try {
      const bytes = Buffer.concat([Buffer.from(bom), encode(hello("你好，世界😀"))]);
      const server = await serve((_req, res) => {
        res.writeHead(200, { "content-type": "text/event-stream" });
        // 一个字节、一个字节地开头：BOM 被拆在两次写入里，一个字符的两个字节也被拆开
        res.write(bytes.subarray(0, 1));
        res.write(bytes.subarray(1, 3), () => res.end(bytes.subarray(3)));
      });
      const { message, deltas } = await collect(openai(server.origin));
      expect(message.stopReason).toBe("stop");
      expect(deltas.join("")).toBe("你好，世界😀");
      expect(warn).not.toHaveBeenCalled();
    } finally {
      warn.mockRestore();
    }
  });

  it("没声明字符集、开头不是 BOM 的 UTF-8：原样照读（只有一个字节的正文也不卡住）", async () => {
    const body = hello("好");
    const server = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(body.slice(0, 1), () => res.end(body.slice(1)));
    });
    const { deltas } = await collect(openai(server.origin));
    expect(deltas.join("")).toBe("好");
  });

  it("没声明字符集、字节却不是 UTF-8（其实是 gbk）：打印一行警告，说明里点名字符集", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    try {
      const server = await serve((_req, res) => {
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.end(encodeGbk(hello("你好，世界")));
      });
      await collect(openai(server.origin));
      expect(warn).toHaveBeenCalledTimes(1);
      expect(String(warn.mock.calls[0]?.[0])).toMatch(/不是合法的 UTF-8.*charset/);
    } finally {
      warn.mockRestore();
    }
  });

  it("不认识的字符集：一条说明字符集的错误，不当成网络故障", async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream; charset=x-klingon" });
      res.end(hello("你好"));
    });
    const { message } = await collect(openai(server.origin));
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toContain("x-klingon");
    expect(message.errorMessage).not.toContain("流在结束前中断");
  });
});

/** 用 TextDecoder 反查出 gbk 的编码表：只为测试里这几个字。 */
function encodeGbk(text: string): Buffer {
  const decoder = new TextDecoder("gbk");
  const table = new Map<string, number[]>();
  for (let hi = 0x81; hi <= 0xfe; hi++) {
    for (let lo = 0x40; lo <= 0xfe; lo++) {
      const ch = decoder.decode(new Uint8Array([hi, lo]));
      if (ch.length === 1 && !table.has(ch)) table.set(ch, [hi, lo]);
    }
  }
  return Buffer.from([...text].flatMap((ch) => (ch.charCodeAt(0) < 0x80 ? [ch.charCodeAt(0)] : (table.get(ch) ?? [0x3f]))));
}

describe("外来的值：构造请求时抛出一个转不成文字的值，也只是一条错误消息", () => {
  it("工具参数结构的 toJSON 抛出 Object.create(null)：不发请求，StreamFn 不抛", async () => {
    const server = await serve((_req, res) => res.end());
    const parameters = { toJSON: () => { throw Object.create(null); } } as unknown as ToolSpec["parameters"];
    const { message } = await collect(openai(server.origin), { messages: [{ role: "user", content: "x" }], tools: [{ name: "bad", description: "", parameters }] });
    expect(message.errorMessage).toBe("构造请求失败：（无法转成文字的值：object）");
    expect(server.requests).toEqual([]);
  });
});
