import { afterEach, describe, expect, it } from "vitest";
import { startProviderServer, type ProviderServer, type RecordedRequest } from "../src/provider-server.js";
import { createOpenAIStream } from "../src/providers/openai-completions.js";
import { collect, KEY } from "./helpers/providers.js";

let server: ProviderServer | undefined;
afterEach(async () => {
  await server?.close();
});

async function post(path: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; text: string }> {
  const response = await fetch(`${server?.url}${path}`, { method: "POST", headers, body: JSON.stringify(body) });
  return { status: response.status, text: await response.text() };
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

  it("脚本可以是函数：回复取决于请求（一个最小的「假模型」）", async () => {
    server = await startProviderServer((request: RecordedRequest, index) => {
      const body = request.body as { messages: Array<{ content: string }> };
      return { text: `第 ${index + 1} 次：${body.messages.at(-1)?.content ?? ""}` };
    });
    const stream = createOpenAIStream({ baseUrl: server.openaiBaseUrl, apiKey: KEY, model: "m" });
    expect((await collect(stream, { messages: [{ role: "user", content: "早" }] })).deltas.join("")).toBe("第 1 次：早");
    expect((await collect(stream, { messages: [{ role: "user", content: "晚" }] })).deltas.join("")).toBe("第 2 次：晚");
  });

  it("脚本用完、路径不对、密钥不对：都回清楚的错误，不消耗脚本", async () => {
    server = await startProviderServer([{ text: "唯一的一句" }], { apiKey: KEY });
    expect(await post("/v1/nothing", {})).toEqual({ status: 404, text: '{"error":{"type":"not_found","message":"没有这个路径：/v1/nothing"}}' });
    const wrongKey = await post("/v1/messages", {}, { "x-api-key": "wrong" });
    expect(wrongKey).toEqual({ status: 401, text: '{"type":"error","error":{"type":"authentication_error","message":"invalid api key"}}' });
    // maxRetries: 0：脚本用完回的是 500，HTTP 层本会重试
    const stream = createOpenAIStream({ baseUrl: server.openaiBaseUrl, apiKey: KEY, model: "m", maxRetries: 0 });
    expect((await collect(stream)).message.stopReason).toBe("stop");
    expect((await collect(stream)).message.errorMessage).toBe("HTTP 500：script_exhausted：脚本已经用完：这是第 4 个请求");
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
});
