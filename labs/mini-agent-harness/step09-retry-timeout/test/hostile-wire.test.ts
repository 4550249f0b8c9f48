/**
 * 服务器不可信（issue 22 第 8–11 条与「上一轮遗留」第一条）：
 * 错误正文只读开头、密钥的任何转义写法都抹掉、格式不对的数据块是协议错误、服务器给的数字先查范围。
 * 服务器用 helpers/raw-server.ts 手造。
 */
import { once } from "node:events";
import type http from "node:http";
import zlib from "node:zlib";
import { describe, expect, it } from "vitest";

import { createAnthropicStream } from "../src/providers/anthropic-messages.js";
import { createOpenAIStream } from "../src/providers/openai-completions.js";
import { MAX_ERROR_BODY_BYTES } from "../src/providers/http-error.js";
import { redactSecrets } from "../src/providers/url.js";
import { collect, KEY } from "./helpers/providers.js";
import { rawServers } from "./helpers/raw-server.js";

const serve = rawServers();

/** 把每个字符都写成 HTML 的十进制数字引用：&#115;&#107;… */
const allDecimal = (text: string): string => [...text].map((ch) => `&#${ch.codePointAt(0)};`).join("");

describe("密钥的每一种转义写法都抹掉", () => {
  it.each([
    ["&#45; 代替 -", KEY.replaceAll("-", "&#45;")],
    ["&#x2d; / &#X2D; 代替 -", KEY.replace("-", "&#x2d;").replace("-", "&#X2D;").replace("-", "&#x002d")],
    ["补零的 &#0045;", KEY.replaceAll("-", "&#0045;")],
    ["每个字符都是数字引用", allDecimal(KEY)],
    ["JSON 的 \\u002d", KEY.replaceAll("-", "\\u002d")],
    ["URL 编码的 %2D", KEY.replaceAll("-", "%2D")],
  ])("%s", (_label, echo) => {
    expect(redactSecrets(`Invalid key: ${echo}.`, [KEY])).toBe("Invalid key: ***.");
  });

  it("401 的 HTML 错误页用数字引用回显密钥：errorMessage 里一次也不出现", async () => {
    const server = await serve((_req, res) => {
      res.writeHead(401, { "content-type": "text/html" });
      res.end(`<html><body><p>Bad key ${KEY.replaceAll("-", "&#45;")} (hex: ${KEY.replaceAll("-", "&#x2d;")})</p></body></html>`);
    });
    const { message } = await collect(createOpenAIStream({ baseUrl: server.origin, apiKey: KEY, model: "m" }));
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toContain("HTTP 401");
    expect(message.errorMessage).toContain("Bad key *** (hex: ***)");
    expect(message.errorMessage).not.toMatch(/SECRET/);
  });
});

/** 真正的 fetch，外面数一数从响应正文里读走了多少字节（解压之后）。 */
function byteCountingFetch(): { fetch: typeof fetch; bytes: () => number } {
  let bytes = 0;
  const wrapped: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    const reader = response.body!.getReader();
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const { done, value } = await reader.read();
        if (done) return controller.close();
        bytes += value.byteLength;
        controller.enqueue(value);
      },
      cancel: (reason) => reader.cancel(reason),
    });
    return new Response(body, { status: response.status, headers: response.headers });
  };
  return { fetch: wrapped, bytes: () => bytes };
}

/** 按背压往 out 里写 total 字节的 0，对方断开就停；返回写进去的字节数，以及是不是写完了。 */
async function pour(out: NodeJS.WritableStream, res: http.ServerResponse, total: number): Promise<{ written: number; finished: boolean }> {
  const chunk = Buffer.alloc(64 * 1024, "x");
  let written = 0;
  const closed = once(res, "close");
  while (written < total && !res.destroyed) {
    written += chunk.byteLength;
    if (!out.write(chunk)) await Promise.race([once(out, "drain"), closed]);
  }
  const finished = written >= total && !res.destroyed;
  if (finished) out.end();
  return { written, finished };
}

describe("错误正文只读开头（解压之后算）", () => {
  it("300 MB 的纯文本 500：只读了开头就断开连接，消息说明被截断", async () => {
    let poured: Promise<{ written: number; finished: boolean }> | undefined;
    const server = await serve((_req, res) => {
      res.writeHead(500, { "content-type": "text/plain" });
      poured = pour(res, res, 300 * 1024 * 1024);
    });
    const counting = byteCountingFetch();
    const { message } = await collect(createOpenAIStream({ baseUrl: server.origin, apiKey: KEY, model: "m", fetch: counting.fetch, maxRetries: 0 }));
    expect(message.errorMessage).toMatch(/^HTTP 500：x{200}/);
    expect(message.errorMessage).toContain(`错误正文超过 ${MAX_ERROR_BODY_BYTES / 1024} KB，只读了开头`);
    expect(counting.bytes()).toBeLessThan(MAX_ERROR_BODY_BYTES + 256 * 1024);
    const { written, finished } = await poured!; // 服务器看见连接被关掉才会停下
    expect(finished).toBe(false);
    expect(written).toBeLessThan(64 * 1024 * 1024);
  });

  it("gzip 炸弹（解压后 256 MB）：解压出来的字节也只读开头", async () => {
    let poured: Promise<{ written: number; finished: boolean }> | undefined;
    const server = await serve((_req, res) => {
      res.writeHead(503, { "content-type": "application/json", "content-encoding": "gzip" });
      const gzip = zlib.createGzip();
      gzip.pipe(res);
      poured = pour(gzip, res, 256 * 1024 * 1024);
    });
    const counting = byteCountingFetch();
    const { message } = await collect(createAnthropicStream({ baseUrl: server.origin, apiKey: KEY, model: "m", fetch: counting.fetch, maxRetries: 0 }));
    expect(message.errorMessage).toMatch(/^HTTP 503：x{200}/);
    expect(message.errorMessage).toContain("只读了开头");
    expect(counting.bytes()).toBeLessThan(MAX_ERROR_BODY_BYTES + 256 * 1024);
    expect((await poured!).finished).toBe(false);
  });

  it("小的错误正文照常整段读完，不说截断", async () => {
    const server = await serve((_req, res) => {
      res.writeHead(429, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { type: "rate_limit_error", message: "slow down" } }));
    });
    const { message } = await collect(createAnthropicStream({ baseUrl: server.origin, apiKey: KEY, model: "m", maxRetries: 0 }));
    expect(message.errorMessage).toBe("HTTP 429：rate_limit_error：slow down");
  });
});
