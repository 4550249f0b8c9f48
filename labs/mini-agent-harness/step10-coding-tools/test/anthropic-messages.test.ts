import { afterEach, describe, expect, it } from "vitest";
import { startProviderServer, type ProviderServer, type Script, type ServerOptions } from "scripted-provider";
import { createAnthropicStream } from "../src/providers/anthropic-messages.js";
import type { Context, StreamFn } from "../src/types.js";
import { CALC, collect, countingFetch, HELLO, KEY } from "./helpers/providers.js";
import { eventually } from "./helpers/wait.js";

const servers: ProviderServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function serve(script: Script, options?: ServerOptions): Promise<{ server: ProviderServer; stream: StreamFn }> {
  const server = await startProviderServer(script, options);
  servers.push(server);
  // maxRetries: 0——这里检查的是单次请求的错误翻译；HTTP 层的重试另见 http-retry.test.ts
  return { server, stream: createAnthropicStream({ baseUrl: server.anthropicBaseUrl, apiKey: KEY, model: "claude-test", maxRetries: 0 }) };
}

describe("Anthropic Messages：正常回复", () => {
  it("文本 + tool_use：input_json_delta 碎片拼回参数；用量取 message_start 与最后一个 message_delta", async () => {
    const { stream } = await serve(
      [
        {
          text: "我来算。",
          toolCalls: [{ name: "calc", arguments: { expression: "6*7", 备注: "中文键" } }],
          argsChunkSize: 3,
          usage: { input: 30, output: 12, cacheRead: 100, cacheWrite: 7 },
        },
      ],
      { apiKey: KEY },
    );
    const { deltas, message } = await collect(stream);
    expect(deltas).toEqual(["我来", "算。"]);
    expect(message).toEqual({
      role: "assistant",
      content: [
        { type: "text", text: "我来算。" },
        { type: "toolCall", id: "toolu_1_1", name: "calc", arguments: { expression: "6*7", 备注: "中文键" } },
      ],
      stopReason: "toolUse",
      // message_start 里 output_tokens 是 1，message_delta 里是累计的 12：取后者，不相加
      usage: { input: 30, output: 12, cacheRead: 100, cacheWrite: 7 },
    });
  });

  it("请求体：system、tool_use 块、连续的工具结果合进一条 user 消息；x-api-key 被记下但已抹掉", async () => {
    const { server, stream } = await serve([{ text: "好" }]);
    const context: Context = {
      systemPrompt: "系统提示",
      tools: [CALC],
      messages: [
        { role: "user", content: "算两道" },
        {
          role: "assistant",
          stopReason: "toolUse",
          content: [
            { type: "text", text: "好。" },
            { type: "toolCall", id: "t1", name: "calc", arguments: { expression: "1/0" } },
            { type: "toolCall", id: "t2", name: "calc", arguments: { expression: "2" } },
          ],
        },
        { role: "toolResult", toolCallId: "t1", toolName: "calc", content: "除数为零", isError: true },
        { role: "toolResult", toolCallId: "t2", toolName: "calc", content: "2" },
        { role: "assistant", stopReason: "error", content: [{ type: "text", text: "半" }], errorMessage: "x" },
        { role: "user", content: "然后呢" },
      ],
    };
    await collect(stream, context);
    const [request] = server.requests;
    expect(request?.path).toBe("/v1/messages");
    expect(request?.headers["x-api-key"]).toBe("***");
    expect(request?.headers["anthropic-version"]).toBe("2023-06-01");
    expect(request?.headers["content-type"]).toBe("application/json");
    expect(JSON.stringify(request)).not.toContain(KEY);
    expect(request?.body).toEqual({
      model: "claude-test",
      max_tokens: 8192,
      system: "系统提示",
      stream: true,
      tools: [{ name: "calc", description: CALC.description, input_schema: CALC.parameters }],
      messages: [
        { role: "user", content: "算两道" },
        {
          role: "assistant",
          content: [
            { type: "text", text: "好。" },
            { type: "tool_use", id: "t1", name: "calc", input: { expression: "1/0" } },
            { type: "tool_use", id: "t2", name: "calc", input: { expression: "2" } },
          ],
        },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "t1", content: "除数为零", is_error: true },
            { type: "tool_result", tool_use_id: "t2", content: "2", is_error: false },
          ],
        },
        { role: "user", content: "然后呢" },
      ],
    });
  });

  it("落单的 tool_use 补一条 No result provided 的 tool_result", async () => {
    const { server, stream } = await serve([{ text: "好" }]);
    await collect(stream, {
      messages: [
        { role: "user", content: "算" },
        { role: "assistant", stopReason: "toolUse", content: [{ type: "toolCall", id: "t1", name: "calc", arguments: {} }] },
        { role: "user", content: "不算了" },
      ],
    });
    const body = server.requests[0]?.body as { messages: unknown[] };
    expect(body.messages).toEqual([
      { role: "user", content: "算" },
      { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "calc", input: {} }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "No result provided", is_error: true }] },
      { role: "user", content: "不算了" },
    ]);
  });

  it("stop_reason max_tokens → length", async () => {
    const { stream } = await serve([{ text: "写到一半", stopReason: "length" }]);
    expect((await collect(stream)).message.stopReason).toBe("length");
  });

  it("stop_reason refusal → error", async () => {
    const { stream } = await serve([{ text: "", stopReason: "refusal" }]);
    const { message } = await collect(stream);
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toBe("模型异常结束：stop_reason=refusal");
  });

  it("逐字节发送、CRLF 行尾：结果不变", async () => {
    const reply = { text: "中文😀混排", toolCalls: [{ id: "t1", name: "calc", arguments: { expression: "一+二" } }] };
    const { server, stream } = await serve([{ ...reply, bytesPerWrite: 1, lineEnding: "\r\n" as const }, reply]);
    const counter = countingFetch();
    const bytewise = createAnthropicStream({ baseUrl: server.anthropicBaseUrl, apiKey: KEY, model: "m", fetch: counter.fetch });
    const slow = await collect(bytewise);
    expect(counter.reads()).toBeGreaterThan(300);
    expect(slow).toEqual(await collect(stream));
    expect(slow.message.stopReason).toBe("toolUse");
  });
});

describe("Anthropic Messages：失败都变成 stopReason error", () => {
  it("HTTP 401：错误类型与说明", async () => {
    const { stream } = await serve([{ httpError: 401, body: { type: "error", error: { type: "authentication_error", message: "invalid x-api-key" } } }]);
    expect((await collect(stream)).message).toEqual({
      role: "assistant",
      content: [],
      stopReason: "error",
      errorMessage: "HTTP 401：authentication_error：invalid x-api-key",
    });
  });

  it("HTTP 529：标准错误正文", async () => {
    const { stream } = await serve([{ httpError: 529 }]);
    expect((await collect(stream)).message.errorMessage).toBe("HTTP 529：overloaded_error：Overloaded");
  });

  it("200 的流里来了 error 事件：带上类型与说明，保留已收到的文本", async () => {
    const { stream } = await serve([{ text: "前半句", streamError: { type: "overloaded_error", message: "Overloaded" } }]);
    const { message } = await collect(stream);
    expect(message.stopReason).toBe("error");
    expect(message.content).toEqual([{ type: "text", text: "前半句" }]);
    expect(message.errorMessage).toBe("流中错误：overloaded_error：Overloaded");
  });

  it("连接中途被掐断", async () => {
    const { server, stream } = await serve([{ text: "一二三四五六", dropAfterChunks: 5 }]);
    const { message } = await collect(stream);
    expect(message.stopReason).toBe("error");
    expect(message.content).toEqual([{ type: "text", text: "一二三四" }]);
    expect(message.errorMessage).toMatch(/^流在结束前中断：/);
    await eventually(() => expect(server.disconnects).toEqual([{ request: 0, path: "/v1/messages", closedByClient: false }]));
  });

  it("流正常关闭却没有 stop_reason", async () => {
    const { stream } = await serve([{ text: "没说完", endWithoutFinish: true }]);
    expect((await collect(stream)).message.errorMessage).toBe("流在结束前中断（没有收到 stop_reason）");
  });

  it("工具参数不是合法 JSON：错误里点名是哪个工具", async () => {
    const { stream } = await serve([{ toolCalls: [{ name: "read_file", arguments: '{"path": ' }] }]);
    const { message } = await collect(stream);
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toMatch(/^工具 read_file 的参数不是合法的 JSON：/);
  });

  it("连不上（ECONNREFUSED），密钥不出现在错误里", async () => {
    const server = await startProviderServer([]);
    await server.close();
    const { message } = await collect(createAnthropicStream({ baseUrl: server.anthropicBaseUrl, apiKey: KEY, model: "m", maxRetries: 0 }));
    expect(message.errorMessage).toMatch(/^网络错误：.*ECONNREFUSED/);
  });
});

describe("Anthropic Messages：取消", () => {
  it("流到一半取消：aborted + 已收到的文本；服务器看到客户端断开", async () => {
    const { server, stream } = await serve([{ text: "一二三四五六", hangAfterChunks: 5 }]);
    const controller = new AbortController();
    const { message } = await collect(stream, HELLO, { signal: controller.signal }, () => controller.abort());
    expect(message).toEqual({
      role: "assistant",
      content: [{ type: "text", text: "一二" }],
      stopReason: "aborted",
      usage: { input: 10, output: 1, cacheRead: 0, cacheWrite: 0 },
    });
    await eventually(() => expect(server.disconnects).toEqual([{ request: 0, path: "/v1/messages", closedByClient: true }]));
  });

  it("收到响应头后一直等不到数据时取消", async () => {
    const { stream } = await serve([{ hang: true }]);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 30);
    expect((await collect(stream, HELLO, { signal: controller.signal })).message).toEqual({
      role: "assistant",
      content: [],
      stopReason: "aborted",
    });
  });
});
