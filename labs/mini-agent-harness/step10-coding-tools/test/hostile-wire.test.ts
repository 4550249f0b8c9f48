/**
 * 服务器不可信（issue 22 第 8–11 条与「上一轮遗留」第一条）：
 * 错误正文只读开头、密钥的任何转义写法都抹掉、格式不对的数据块是协议错误、服务器给的数字先查范围。
 * 服务器用 helpers/raw-server.ts 手造。
 */
import { once } from "node:events";
import type http from "node:http";
import zlib from "node:zlib";
import { describe, expect, it, vi } from "vitest";

import { createAnthropicStream } from "../src/providers/anthropic-messages.js";
import { createOpenAIStream } from "../src/providers/openai-completions.js";
import { MAX_ERROR_BODY_BYTES } from "../src/providers/http-error.js";
import { redactSecrets } from "../src/providers/guards/settings.js";
import { MAX_TIMER_MS } from "../src/guard.js";
import { serverRequestedDelay } from "../src/retry/backoff.js";
import { classifyAssistantError } from "../src/retry/classify.js";
import { requestWithRetry } from "../src/providers/http-retry.js";
import { collect, KEY } from "./helpers/providers.js";
import { rawServers, sendSse } from "./helpers/raw-server.js";

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

/** 一个只回给定 SSE 事件的服务器，两种协议的客户端都能连。 */
async function sse(events: Array<{ event?: string; data: unknown }>) {
  const server = await serve((_req, res) => sendSse(res, events));
  return {
    openai: () => collect(createOpenAIStream({ baseUrl: server.origin, apiKey: KEY, model: "m" })),
    anthropic: () => collect(createAnthropicStream({ baseUrl: server.origin, apiKey: KEY, model: "m", maxRetries: 0 })),
  };
}

const start = { event: "message_start", data: { type: "message_start", message: { usage: { input_tokens: 3, output_tokens: 1 } } } };
const finish = (reason: string) => [
  { event: "message_delta", data: { type: "message_delta", delta: { stop_reason: reason }, usage: { output_tokens: 5 } } },
  { event: "message_stop", data: { type: "message_stop" } },
];

describe("形状不对的数据块是协议错误，说出是哪个字段（第 10、11 条）", () => {
  it.each([
    ["data: null", "null", "数据 应为对象"],
    ["数组", "[1,2]", "数据 应为对象"],
    ["choices 不是数组", `{"choices":{"0":{}}}`, "choices 应为数组"],
    ["content 是数字", `{"choices":[{"delta":{"content":42}}]}`, "choices[0].delta.content 应为字符串"],
    ["tool_calls 不是数组", `{"choices":[{"delta":{"tool_calls":{}}}]}`, "choices[0].delta.tool_calls 应为数组"],
    ["tool_calls 里有 null", `{"choices":[{"delta":{"tool_calls":[null]}}]}`, "choices[0].delta.tool_calls[0] 应为对象"],
    ["index 是负数", `{"choices":[{"delta":{"tool_calls":[{"index":-1,"id":"a"}]}}]}`, "tool_calls[0].index 应为非负整数"],
    ["token 数是 1e400（JSON.parse 给出 Infinity）", `{"choices":[],"usage":{"prompt_tokens":1e400}}`, "usage.prompt_tokens 应为非负整数"],
    ["token 数是字符串", `{"choices":[],"usage":{"completion_tokens":"12"}}`, "usage.completion_tokens 应为非负整数"],
  ])("OpenAI：%s", async (_label, data, problem) => {
    const { message } = await (await sse([{ data: { choices: [{ delta: { content: "先到的字" } }] } }, { data }, { data: "[DONE]" }])).openai();
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toMatch(/^协议错误：/);
    expect(message.errorMessage).toContain(problem);
    expect(message.errorMessage).not.toContain("流在结束前中断");
    expect(message.content).toEqual([{ type: "text", text: "先到的字" }]); // 已经显示的字留着
  });

  it.each([
    ["data: null", "null", "数据 应为对象"],
    ["index 是小数", `{"type":"content_block_start","index":0.5,"content_block":{"type":"text","text":""}}`, "index 应为非负整数"],
    ["delta 是字符串", `{"type":"content_block_delta","index":0,"delta":"hi"}`, "delta 应为对象"],
    ["text 是对象", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":{}}}`, "delta.text 应为字符串"],
    ["input_tokens 是负数", `{"type":"message_start","message":{"usage":{"input_tokens":-3}}}`, "message.usage.input_tokens 应为非负整数"],
    ["output_tokens 超出安全整数", `{"type":"message_delta","delta":{},"usage":{"output_tokens":9007199254740993}}`, "usage.output_tokens 应为非负整数"],
  ])("Anthropic：%s", async (_label, data, problem) => {
    const { message } = await (await sse([start, { event: "x", data }, ...finish("end_turn")])).anthropic();
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toMatch(/^协议错误：/);
    expect(message.errorMessage).toContain(problem);
  });

  it("合格的块里 null 的字段照常接受（content: null、usage: null、finish_reason: null）", async () => {
    const { message } = await (await sse([
      { data: { choices: [{ delta: { content: null, reasoning_content: null }, finish_reason: null }], usage: null } },
      { data: { choices: [{ delta: { content: "好" }, finish_reason: "stop" }] } },
      { data: "[DONE]" },
    ])).openai();
    expect(message).toMatchObject({ stopReason: "stop", content: [{ type: "text", text: "好" }] });
  });
});

describe("工具调用的认领（第 10 条）", () => {
  it("OpenAI：同一个 index 来了新的 id，是另一个调用，两个都完整", async () => {
    const call = (id: string, args: string) => ({ data: { choices: [{ delta: { tool_calls: [{ index: 0, id, type: "function", function: { name: "calc", arguments: args } }] } }] } });
    const { message } = await (await sse([
      call("call_a", '{"expression":"1+1"}'),
      call("call_b", '{"expression":'),
      { data: { choices: [{ delta: { tool_calls: [{ index: 0, function: { arguments: '"2+2"}' } }] } }] } },
      { data: { choices: [{ delta: {}, finish_reason: "tool_calls" }] } },
      { data: "[DONE]" },
    ])).openai();
    expect(message.stopReason).toBe("toolUse");
    expect(message.content).toEqual([
      { type: "toolCall", id: "call_a", name: "calc", arguments: { expression: "1+1" } },
      { type: "toolCall", id: "call_b", name: "calc", arguments: { expression: "2+2" } },
    ]);
  });

  it("Anthropic：从没开始过的内容块来了参数增量：忽略并警告一行，文字照留，这一轮不失败", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    try {
      const { message } = await (await sse([
        start,
        { event: "content_block_start", data: { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } } },
        { event: "content_block_delta", data: { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "文字" } } },
        { event: "content_block_delta", data: { type: "content_block_delta", index: 7, delta: { type: "input_json_delta", partial_json: '{"x":1}' } } },
        { event: "content_block_stop", data: { type: "content_block_stop", index: 0 } },
        ...finish("end_turn"),
      ])).anthropic();
      expect(message).toMatchObject({ stopReason: "stop", content: [{ type: "text", text: "文字" }] });
      expect(message.content).toHaveLength(1);
      expect(warn).toHaveBeenCalledTimes(1);
      expect(String(warn.mock.calls[0]?.[0])).toMatch(/^\[警告\] .*内容块 7.*忽略/);
    } finally {
      warn.mockRestore();
    }
  });
});

describe("协议错误不重试（8.7 的分诊表）", () => {
  it.each([
    ["data: null", "null"],
    ["形状不对，data 里碰巧有 500 与 timeout", `{"choices":[{"delta":{"content":500}}],"note":"timeout"}`],
    ["不是 JSON，里面碰巧有 overloaded", "{overloaded"],
  ])("%s：判为 fatal，不是「流在结束前中断」那样的可重试", async (_label, data) => {
    const { message } = await (await sse([{ data }])).openai();
    expect(message.errorMessage).toMatch(/^(协议错误|无法解析的流数据)：/);
    expect(classifyAssistantError(message)).toBe("fatal");
  });
});

describe("服务器要求的等待先查范围（第 11 条）", () => {
  const NOW = Date.parse("2026-01-01T00:00:00Z");
  it.each([
    [{ "retry-after-ms": "-5" }, undefined], // 负数：当作没说
    [{ "retry-after": "-1" }, undefined], // Date.parse("-1") 却是个日期
    [{ "retry-after-ms": "12abc" }, undefined], // parseFloat 会读成 12
    [{ "retry-after-ms": "0x10" }, undefined], // Number 会读成 16
    [{ "retry-after-ms": "1e400" }, undefined], // Infinity
    [{ "retry-after-ms": "9".repeat(400) }, undefined], // 一串数字，也是 Infinity
    [{ "retry-after": "Infinity" }, undefined],
    [{ "retry-after-ms": " 50 " }, 50],
    [{ "retry-after-ms": "bad", "retry-after": "2" }, 2000],
  ])("%s", (headers, expected) => {
    expect(serverRequestedDelay(new Headers(headers), NOW)).toBe(expected);
  });

  it.each([
    ["秒数", { "retry-after": "99999999999" }],
    ["遥远的日期", { "retry-after": "Fri, 31 Dec 9999 23:59:59 GMT" }],
  ])("%s超出定时器上限：即使不设等待上限（maxRetryDelayMs: 0），也立刻失败而不是 1 毫秒后重试", async (_label, headers) => {
    const delays: number[] = [];
    let calls = 0;
    const send = async (): Promise<Response> => (calls++, new Response("{}", { status: 429, headers }));
    const outcome = await requestWithRetry(send, { maxRetryDelayMs: 0, sleep: async (ms) => (delays.push(ms), true) });
    expect(outcome).toMatchObject({ kind: "error" });
    expect(outcome.kind === "error" && outcome.errorMessage).toMatch(/^服务器要求等待 \d+ 秒，超过上限 2147484 秒/);
    expect(calls).toBe(1);
    expect(delays).toEqual([]);
    expect(MAX_TIMER_MS).toBe(2 ** 31 - 1);
  });
});
