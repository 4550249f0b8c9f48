/**
 * 真实服务与真实配置才会碰到的几种情形（issue 13）：
 * 重定向不带走密钥、带查询串的 baseUrl、200 却不是事件流、工具参数写到一半撞上 max_tokens、思考模型。
 * 服务器用 helpers/raw-server.ts 手造，每个测试自己决定它回什么。
 */
import { describe, expect, it } from "vitest";

import { buildAnthropicRequest, createAnthropicStream } from "../src/providers/anthropic-messages.js";
import { describeProvider } from "../src/providers/index.js";
import { buildOpenAIRequest, createOpenAIStream } from "../src/providers/openai-completions.js";
import { joinUrl, redactSecrets } from "../src/providers/guards/settings.js";
import { renderEvents } from "../src/render.js";
import type { AssistantMessage, Context, HarnessEvent, StreamEvent, StreamFn } from "../src/types.js";
import { CALC, collect, HELLO, KEY } from "./helpers/providers.js";
import { rawServers, sendSse } from "./helpers/raw-server.js";

const serve = rawServers();

const openaiChunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
  data: { choices: [{ index: 0, delta, finish_reason: finish }] },
});

const anthropicDone = (stopReason: string) => [
  { event: "message_delta", data: { type: "message_delta", delta: { stop_reason: stopReason }, usage: { output_tokens: 5 } } },
  { event: "message_stop", data: { type: "message_stop" } },
];

const anthropicText = (text: string) => [
  { event: "message_start", data: { type: "message_start", message: { usage: { input_tokens: 3, output_tokens: 1 } } } },
  { event: "content_block_start", data: { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } } },
  { event: "content_block_delta", data: { type: "content_block_delta", index: 0, delta: { type: "text_delta", text } } },
  { event: "content_block_stop", data: { type: "content_block_stop", index: 0 } },
  ...anthropicDone("end_turn"),
];

/** 收集一个流的全部事件（collect 之外还要看 thinking_delta 时用）。 */
async function events(stream: StreamFn, context: Context = HELLO): Promise<StreamEvent[]> {
  const out: StreamEvent[] = [];
  for await (const event of stream(context)) out.push(event);
  return out;
}

describe("重定向：密钥只发给配置的源", () => {
  it("Anthropic：307 到另一个源，不跟随，x-api-key 从未到达那里；错误点名目标主机", async () => {
    const elsewhere = await serve((_req, res) => sendSse(res, anthropicText("不该到这里")));
    const configured = await serve((_req, res) => {
      res.writeHead(307, { location: `${elsewhere.origin}/v1/messages` });
      res.end();
    });
    const stream = createAnthropicStream({ baseUrl: configured.origin, apiKey: KEY, model: "m" });
    const { message } = await collect(stream);
    expect(elsewhere.requests).toEqual([]);
    expect(configured.requests).toHaveLength(1);
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toContain("HTTP 307");
    expect(message.errorMessage).toContain(new URL(elsewhere.origin).host);
  });

  it("同一个源内的 308 照跟（请求与密钥都原样重发）；来回兜圈子超过 3 次就放弃", async () => {
    const server = await serve((req, res) => {
      if (req.url === "/old/v1/messages") {
        res.writeHead(308, { location: "/new/v1/messages" });
        res.end();
      } else if (req.url === "/new/v1/messages") {
        sendSse(res, anthropicText("搬家了"));
      } else {
        res.writeHead(307, { location: req.url });
        res.end();
      }
    });
    const moved = createAnthropicStream({ baseUrl: `${server.origin}/old`, apiKey: KEY, model: "m" });
    const { message } = await collect(moved);
    expect(message).toMatchObject({ stopReason: "stop", content: [{ type: "text", text: "搬家了" }] });
    expect(server.requests.map((r) => [r.url, r.method, r.headers["x-api-key"]])).toEqual([
      ["/old/v1/messages", "POST", KEY],
      ["/new/v1/messages", "POST", KEY],
    ]);
    expect(server.requests[1]?.body).toBe(server.requests[0]?.body);

    server.requests.length = 0;
    const loop = createAnthropicStream({ baseUrl: `${server.origin}/loop`, apiKey: KEY, model: "m" });
    const looped = await collect(loop);
    expect(looped.message.stopReason).toBe("error");
    expect(looped.message.errorMessage).toContain("超过 3 次");
    expect(server.requests).toHaveLength(4);
  });
});

describe("带查询串的 baseUrl", () => {
  const SECRET_Q = "q-SECRET+/=42";

  it("路径接在路径后面，查询串原样保留", () => {
    expect(joinUrl("https://x.example/v1?api-version=2024-10-21", "/chat/completions")).toBe(
      "https://x.example/v1/chat/completions?api-version=2024-10-21",
    );
    expect(joinUrl("https://x.example/v1/", "/chat/completions")).toBe("https://x.example/v1/chat/completions");
  });

  it("请求到达 /v1/chat/completions?api-version=x；回显的查询串密钥（原样、JSON、HTML、URL 编码）全被抹掉", async () => {
    const server = await serve((req, res) => {
      const encoded = encodeURIComponent(req.url);
      res.writeHead(401, { "content-type": "application/json" });
      // 有的网关把收到的地址写进错误：原样、JSON 转义、HTML 转义、URL 编码各来一遍
      const echo = `${req.url} ${JSON.stringify(req.url)} ${req.url.replace(/&/g, "&amp;")} ${encoded} ${JSON.stringify(SECRET_Q)} ${encodeURIComponent(SECRET_Q)}`;
      res.end(JSON.stringify({ error: { message: `bad request to ${echo}` } }));
    });
    const baseUrl = `${server.origin}/v1?api-version=x&key=${encodeURIComponent(SECRET_Q)}`;
    const { message } = await collect(createOpenAIStream({ baseUrl, apiKey: "", model: "m" }));
    expect(server.requests[0]?.url).toBe(`/v1/chat/completions?api-version=x&key=${encodeURIComponent(SECRET_Q)}`);
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toContain("api-version=x");
    for (const form of [SECRET_Q, encodeURIComponent(SECRET_Q), JSON.stringify(SECRET_Q).slice(1, -1), "q-SECRET"]) {
      expect(message.errorMessage).not.toContain(form);
    }
    expect(describeProvider({ api: "openai", baseUrl, model: "m" })).toBe(
      `模型：m（OpenAI Chat Completions，${server.origin}/v1/chat/completions?api-version=x&key=***）`,
    );
  });

  it("redactSecrets：密钥的 JSON、HTML、URL 编码写法也认得", () => {
    const secret = `a"b&c<d+e/f`;
    const echoes = [secret, JSON.stringify(secret).slice(1, -1), "a&quot;b&amp;c&lt;d+e/f", encodeURIComponent(secret)];
    for (const echo of echoes) expect(redactSecrets(`key was ${echo}!`, [secret])).toBe("key was ***!");
    expect(redactSecrets("GET /x?token=abc123&page=2 and %3Fapi_key%3Dzzz9 and \\u0026access_token=t0k", [])).toBe(
      "GET /x?token=***&page=2 and %3Fapi_key%3D*** and \\u0026access_token=***",
    );
  });
});

describe("200 却不是事件流", () => {
  it("强制门户的 HTML：说出类型与开头，不当成「流中断」", async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end("<html><title>请先登录 Wi-Fi</title></html>");
    });
    const { message } = await collect(createOpenAIStream({ baseUrl: server.origin, apiKey: KEY, model: "m" }));
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toContain("不是事件流");
    expect(message.errorMessage).toContain("text/html");
    expect(message.errorMessage).toContain("<html><title>请先登录 Wi-Fi");
    expect(message.errorMessage).not.toContain("流在结束前中断");
  });

  it("JSON 错误体也一样", async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: "model not found" }));
    });
    const { message } = await collect(createAnthropicStream({ baseUrl: server.origin, apiKey: KEY, model: "m" }));
    expect(message.errorMessage).toMatch(/^服务器返回的不是事件流（content-type: application\/json），开头是：\{"error":"model not found"\}/);
  });
});

describe("max_tokens 截在工具参数中间", () => {
  it("OpenAI：stopReason 为 length，文字保留，半截的调用不交出去", async () => {
    const server = await serve((_req, res) =>
      sendSse(res, [
        openaiChunk({ content: "我来算一下。" }),
        openaiChunk({ tool_calls: [{ index: 0, id: "c1", function: { name: "calc", arguments: '{"expression":"1+' } }] }),
        openaiChunk({}, "length"),
        { data: "[DONE]" },
      ]),
    );
    const { message } = await collect(createOpenAIStream({ baseUrl: server.origin, apiKey: KEY, model: "m" }), { ...HELLO, tools: [CALC] });
    expect(message).toEqual({ role: "assistant", content: [{ type: "text", text: "我来算一下。" }], stopReason: "length" });
  });

  it("Anthropic：stop_reason max_tokens 同样", async () => {
    const server = await serve((_req, res) =>
      sendSse(res, [
        ...anthropicText("我来算。").slice(0, 4),
        { event: "content_block_start", data: { type: "content_block_start", index: 1, content_block: { type: "tool_use", id: "t1", name: "calc", input: {} } } },
        { event: "content_block_delta", data: { type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: '{"expression":"1+' } } },
        ...anthropicDone("max_tokens"),
      ]),
    );
    const { message } = await collect(createAnthropicStream({ baseUrl: server.origin, apiKey: KEY, model: "m" }), { ...HELLO, tools: [CALC] });
    expect(message.stopReason).toBe("length");
    expect(message.errorMessage).toBeUndefined();
    expect(message.content).toEqual([{ type: "text", text: "我来算。" }]);
  });
});

describe("思考模型", () => {
  it("OpenAI 兼容：reasoning_content 成为 thinking_delta 与一个 thinking 块；下一轮不把它送回去", async () => {
    const server = await serve((_req, res) =>
      sendSse(res, [
        openaiChunk({ role: "assistant", reasoning_content: "用户在打招呼，" }),
        openaiChunk({ reasoning_content: "回一句问候。" }),
        openaiChunk({ content: "你好！" }),
        openaiChunk({}, "stop"),
        { data: "[DONE]" },
      ]),
    );
    const got = await events(createOpenAIStream({ baseUrl: server.origin, apiKey: KEY, model: "m" }));
    expect(got.filter((e) => e.type !== "done")).toEqual([
      { type: "thinking_delta", delta: "用户在打招呼，" },
      { type: "thinking_delta", delta: "回一句问候。" },
      { type: "text_delta", delta: "你好！" },
    ]);
    const message = (got.at(-1) as Extract<StreamEvent, { type: "done" }>).message;
    expect(message.content).toEqual([
      { type: "thinking", thinking: "用户在打招呼，回一句问候。" },
      { type: "text", text: "你好！" },
    ]);
    const next = buildOpenAIRequest({ baseUrl: "", apiKey: "", model: "m" }, { messages: [...HELLO.messages, message, { role: "user", content: "再见" }] });
    expect(JSON.stringify(next)).not.toContain("打招呼");
    expect((next.messages as unknown[])[1]).toEqual({ role: "assistant", content: "你好！" });
  });

  it("OpenAI 兼容：只给 reasoning 字段的服务（OpenRouter、vLLM）也认", async () => {
    const server = await serve((_req, res) =>
      sendSse(res, [openaiChunk({ reasoning: "想一想" }), openaiChunk({ content: "好" }, "stop"), { data: "[DONE]" }]),
    );
    const got = await events(createOpenAIStream({ baseUrl: server.origin, apiKey: KEY, model: "m" }));
    expect(got[0]).toEqual({ type: "thinking_delta", delta: "想一想" });
  });

  it("Anthropic：thinking_delta 与 signature_delta 拼成带签名的思考块；带工具调用的下一轮原样送回", async () => {
    const server = await serve((_req, res) =>
      sendSse(res, [
        { event: "message_start", data: { type: "message_start", message: { usage: { input_tokens: 3, output_tokens: 1 } } } },
        { event: "content_block_start", data: { type: "content_block_start", index: 0, content_block: { type: "thinking", thinking: "", signature: "" } } },
        { event: "content_block_delta", data: { type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "要算 1+2，" } } },
        { event: "content_block_delta", data: { type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "用 calc。" } } },
        { event: "content_block_delta", data: { type: "content_block_delta", index: 0, delta: { type: "signature_delta", signature: "sig-AAA" } } },
        { event: "content_block_stop", data: { type: "content_block_stop", index: 0 } },
        { event: "content_block_start", data: { type: "content_block_start", index: 1, content_block: { type: "tool_use", id: "t1", name: "calc", input: {} } } },
        { event: "content_block_delta", data: { type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: '{"expression":"1+2"}' } } },
        { event: "content_block_stop", data: { type: "content_block_stop", index: 1 } },
        ...anthropicDone("tool_use"),
      ]),
    );
    const got = await events(createAnthropicStream({ baseUrl: server.origin, apiKey: KEY, model: "m" }), { ...HELLO, tools: [CALC] });
    expect(got.filter((e) => e.type === "thinking_delta").map((e) => (e as { delta: string }).delta)).toEqual(["要算 1+2，", "用 calc。"]);
    const message = (got.at(-1) as Extract<StreamEvent, { type: "done" }>).message;
    expect(message.stopReason).toBe("toolUse");
    expect(message.content).toEqual([
      { type: "thinking", thinking: "要算 1+2，用 calc。", thinkingSignature: "sig-AAA" },
      { type: "toolCall", id: "t1", name: "calc", arguments: { expression: "1+2" } },
    ]);
    const next = buildAnthropicRequest({ baseUrl: "", apiKey: "", model: "m" }, {
      messages: [...HELLO.messages, message, { role: "toolResult", toolCallId: "t1", toolName: "calc", content: "3" }],
    });
    expect((next.messages as Array<{ content: unknown }>)[1]?.content).toEqual([
      { type: "thinking", thinking: "要算 1+2，用 calc。", signature: "sig-AAA" },
      { type: "tool_use", id: "t1", name: "calc", input: { expression: "1+2" } },
    ]);
  });

  it("渲染：推理一行行以「思考> 」开头，回答另起一行「助手> 」", async () => {
    async function* script(): AsyncGenerator<HarnessEvent> {
      yield { type: "thinking_delta", delta: "第一行\n第" };
      yield { type: "thinking_delta", delta: "二行\n" };
      yield { type: "text_delta", delta: "答案" };
      const message: AssistantMessage = { role: "assistant", content: [{ type: "text", text: "答案" }], stopReason: "stop" };
      yield { type: "message", message };
    }
    let out = "";
    await renderEvents(script(), (text) => (out += text));
    expect(out).toBe("思考> 第一行\n思考> 第二行\n助手> 答案\n");
  });
});
