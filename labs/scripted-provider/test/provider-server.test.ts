/**
 * 服务器本身：用 fetch 直接发请求看原样输出，不经过任何步骤的客户端。
 * 步骤里的客户端（providers/）怎样消费这些流，由 step08、step09 自己的测试负责。
 */
import { afterEach, describe, expect, it } from "vitest";
import { startProviderServer, type ProviderServer, type RecordedRequest } from "../src/index.js";

const KEY = "sk-test-SECRET-0123456789";

let server: ProviderServer | undefined;
afterEach(async () => {
  await server?.close();
});

async function post(path: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; text: string; headers: Headers }> {
  const response = await fetch(`${server?.url}${path}`, { method: "POST", headers, body: JSON.stringify(body) });
  return { status: response.status, text: await response.text(), headers: response.headers };
}

/** OpenAI 流里的文字增量拼起来。 */
function openaiText(stream: string): string {
  return stream
    .split("\n\n")
    .filter((event) => event.startsWith("data: {"))
    .map((event) => (JSON.parse(event.slice(6)) as { choices: Array<{ delta?: { content?: string } }> }).choices[0]?.delta?.content ?? "")
    .join("");
}

describe("本地脚本服务器", () => {
  it("OpenAI 流的原样输出是确定的（不含时间戳与随机 id）", async () => {
    server = await startProviderServer([{ text: "你好", usage: { input: 3, output: 1 } }]);
    const { text } = await post("/chat/completions", { model: "m", stream: true, stream_options: { include_usage: true } });
    expect(text).toBe(
      [
        ": 本地脚本服务器",
        'data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":0,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}',
        'data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":0,"model":"m","choices":[{"index":0,"delta":{"content":"你好"},"finish_reason":null}]}',
        'data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":0,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}',
        'data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":0,"model":"m","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4,"prompt_tokens_details":{"cached_tokens":0}}}',
        "data: [DONE]",
        "",
      ].join("\n\n"),
    );
  });

  it("Anthropic 流：message_start、文字块、message_delta 的 stop_reason、message_stop", async () => {
    server = await startProviderServer([{ text: "你好" }]);
    const { text } = await post("/v1/messages", { model: "m", stream: true });
    const types = [...text.matchAll(/^event: (\S+)$/gm)].map((m) => m[1]);
    expect(types).toEqual(["message_start", "ping", "content_block_start", "content_block_delta", "content_block_stop", "message_delta", "message_stop"]);
    expect(text).toContain('"stop_reason":"end_turn"');
  });

  it("脚本可以是函数：回复取决于请求（一个最小的「假模型」）", async () => {
    server = await startProviderServer((request: RecordedRequest, index) => {
      const body = request.body as { messages: Array<{ content: string }> };
      return { text: `第 ${index + 1} 次：${body.messages.at(-1)?.content ?? ""}` };
    });
    expect(openaiText((await post("/v1/chat/completions", { messages: [{ role: "user", content: "早" }] })).text)).toBe("第 1 次：早");
    expect(openaiText((await post("/v1/chat/completions", { messages: [{ role: "user", content: "晚" }] })).text)).toBe("第 2 次：晚");
  });

  it("脚本用完、路径不对、密钥不对：都回清楚的错误，不消耗脚本", async () => {
    server = await startProviderServer([{ text: "唯一的一句" }], { apiKey: KEY });
    expect(await post("/v1/nothing", {})).toMatchObject({ status: 404, text: '{"error":{"type":"not_found","message":"没有这个路径：/v1/nothing"}}' });
    const wrongKey = await post("/v1/messages", {}, { "x-api-key": "wrong" });
    expect(wrongKey).toMatchObject({ status: 401, text: '{"type":"error","error":{"type":"authentication_error","message":"invalid api key"}}' });
    const auth = { authorization: `Bearer ${KEY}` };
    expect(openaiText((await post("/v1/chat/completions", {}, auth)).text)).toBe("唯一的一句");
    const exhausted = await post("/v1/chat/completions", {}, auth);
    expect(exhausted).toMatchObject({ status: 500, text: '{"error":{"message":"脚本已经用完：这是第 4 个请求","type":"script_exhausted","code":null}}' });
  });

  it("HTTP 错误：带上给定的响应头；message 换掉按状态码给的说明，正文按协议的错误格式", async () => {
    server = await startProviderServer([
      { httpError: 429, headers: { "retry-after-ms": "50", "x-should-retry": "true" } },
      { httpError: 400, message: "prompt is too long" },
    ]);
    const limited = await post("/v1/chat/completions", {});
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after-ms")).toBe("50");
    expect(limited.headers.get("x-should-retry")).toBe("true");
    expect(JSON.parse(limited.text)).toEqual({ error: { message: "Too Many Requests", type: "rate_limit_error", code: null } });
    const overflow = await post("/v1/messages", {});
    expect(JSON.parse(overflow.text)).toEqual({ type: "error", error: { type: "invalid_request_error", message: "prompt is too long" } });
  });

  it("记下每个请求：方法、路径、抹掉认证值的头、解析后的正文", async () => {
    server = await startProviderServer([]);
    await post("/v1/chat/completions?x=1", { model: "m" }, { authorization: `Bearer ${KEY}`, "x-api-key": KEY, "x-other": "visible" });
    expect(server.requests).toHaveLength(1);
    const [request] = server.requests;
    expect(request).toMatchObject({ method: "POST", path: "/v1/chat/completions", api: "openai", body: { model: "m" } });
    expect(request?.headers).toMatchObject({ authorization: "Bearer ***", "x-api-key": "***", "x-other": "visible" });
    expect(JSON.stringify(server.requests)).not.toContain(KEY);
  });

  it("disconnected：客户端中途走掉时叫醒等待者；按脚本掐断的记作服务器断开", async () => {
    server = await startProviderServer([{ text: "一二三四五六", hangAfterChunks: 2 }, { text: "一二三四五六", dropAfterChunks: 2 }]);
    const controller = new AbortController();
    const response = await fetch(`${server.url}/v1/chat/completions`, { method: "POST", body: "{}", signal: controller.signal });
    const waiting = server.disconnected(0);
    await response.body?.getReader().read(); // 至少收到一块，再走掉
    controller.abort();
    expect(await waiting).toEqual({ request: 0, path: "/v1/chat/completions", closedByClient: true });

    await post("/v1/chat/completions", {}).catch(() => undefined); // 服务器掐断：fetch 可能报错
    expect(await server.disconnected(1)).toEqual({ request: 1, path: "/v1/chat/completions", closedByClient: false });
  });

  it("disconnected：服务器关闭时不再等，返回 undefined", async () => {
    const local = await startProviderServer([]);
    const waiting = local.disconnected(5);
    await local.close();
    expect(await waiting).toBeUndefined();
  });
});
