import { afterEach, describe, expect, it } from "vitest";
import { startProviderServer, type ProviderServer, type Script, type ServerOptions } from "scripted-provider";
import { createOpenAIStream } from "../src/providers/openai-completions.js";
import type { Context, StreamFn } from "../src/types.js";
import { CALC, collect, countingFetch, HELLO, KEY } from "./helpers/providers.js";
import { eventually, until } from "./helpers/wait.js";

const servers: ProviderServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function serve(script: Script, options?: ServerOptions): Promise<{ server: ProviderServer; stream: StreamFn }> {
  const server = await startProviderServer(script, options);
  servers.push(server);
  // maxRetries: 0——这里检查的是单次请求的错误翻译；HTTP 层的重试另见 http-retry.test.ts
  return { server, stream: createOpenAIStream({ baseUrl: server.openaiBaseUrl, apiKey: KEY, model: "gpt-test", maxRetries: 0 }) };
}

describe("OpenAI Chat Completions：正常回复", () => {
  it("文本按块到达，done 带完整文本与用量（input 不含缓存命中）", async () => {
    const { stream } = await serve([{ text: "你好，世界！", usage: { input: 20, output: 6, cacheRead: 5 } }], { apiKey: KEY });
    const { deltas, message } = await collect(stream);
    expect(deltas).toEqual(["你好", "，世", "界！"]);
    expect(message).toEqual({
      role: "assistant",
      content: [{ type: "text", text: "你好，世界！" }],
      stopReason: "stop",
      usage: { input: 20, output: 6, cacheRead: 5, cacheWrite: 0 },
    });
  });

  it("请求体：system、历史里的工具调用与结果、工具说明、max_tokens；认证头被记下但已抹掉", async () => {
    const server = await startProviderServer([{ text: "好" }]);
    servers.push(server);
    const stream = createOpenAIStream({ baseUrl: server.openaiBaseUrl + "/", apiKey: KEY, model: "gpt-test", maxTokens: 100 });
    const context: Context = {
      systemPrompt: "系统提示",
      tools: [CALC],
      messages: [
        { role: "user", content: "算 1+2" },
        {
          role: "assistant",
          stopReason: "toolUse",
          content: [
            { type: "text", text: "我来算。" },
            { type: "toolCall", id: "c1", name: "calc", arguments: { expression: "1+2" } },
          ],
        },
        { role: "toolResult", toolCallId: "c1", toolName: "calc", content: "3" },
        { role: "assistant", stopReason: "stop", content: [{ type: "text", text: "等于 3。" }] },
        { role: "user", content: "谢谢" },
      ],
    };
    await collect(stream, context);
    const [request] = server.requests;
    expect(request?.path).toBe("/v1/chat/completions");
    expect(request?.headers.authorization).toBe("Bearer ***");
    expect(JSON.stringify(request)).not.toContain(KEY);
    expect(request?.body).toEqual({
      model: "gpt-test",
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: 100,
      messages: [
        { role: "system", content: "系统提示" },
        { role: "user", content: "算 1+2" },
        {
          role: "assistant",
          content: "我来算。",
          tool_calls: [{ id: "c1", type: "function", function: { name: "calc", arguments: '{"expression":"1+2"}' } }],
        },
        { role: "tool", tool_call_id: "c1", content: "3" },
        { role: "assistant", content: "等于 3。" },
        { role: "user", content: "谢谢" },
      ],
      tools: [{ type: "function", function: { name: "calc", description: CALC.description, parameters: CALC.parameters } }],
    });
  });

  it("两个工具调用的参数碎片交错、逐字符到达：按 index 拼回", async () => {
    const { stream } = await serve([
      {
        text: "我查一下。",
        toolCalls: [
          { name: "calc", arguments: { expression: "(1+2)*3" } },
          { name: "read_file", arguments: { path: "笔记/今天.md" } },
        ],
        argsChunkSize: 1,
        interleaveToolCalls: true,
      },
    ]);
    const { message } = await collect(stream);
    expect(message.stopReason).toBe("toolUse");
    expect(message.content).toEqual([
      { type: "text", text: "我查一下。" },
      { type: "toolCall", id: "call_1_1", name: "calc", arguments: { expression: "(1+2)*3" } },
      { type: "toolCall", id: "call_1_2", name: "read_file", arguments: { path: "笔记/今天.md" } },
    ]);
  });

  it("兼容服务器带着工具调用却报 finish_reason stop：按 toolUse 处理，否则调用永远不会执行", async () => {
    const { stream } = await serve([{ toolCalls: [{ name: "calc", arguments: { expression: "1" } }], stopReason: "stop" }]);
    expect((await collect(stream)).message.stopReason).toBe("toolUse");
  });

  it("兼容服务器不给 index：第一片按 id 认领，之后没有 id 的碎片接在上一个调用后面", async () => {
    const chunk = (delta: object, finish: string | null = null): string =>
      `data: ${JSON.stringify({ choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    const raw =
      chunk({ tool_calls: [{ id: "a", function: { name: "calc", arguments: '{"expression":' } }] }) +
      chunk({ tool_calls: [{ function: { arguments: '"1"}' } }] }) +
      chunk({ tool_calls: [{ id: "b", function: { name: "calc", arguments: '{"expression":"2"}' } }] }) +
      chunk({}, "tool_calls") +
      "data: [DONE]\n\n";
    const { stream } = await serve([{ raw }]);
    expect((await collect(stream)).message.content).toEqual([
      { type: "toolCall", id: "a", name: "calc", arguments: { expression: "1" } },
      { type: "toolCall", id: "b", name: "calc", arguments: { expression: "2" } },
    ]);
  });

  it("没有参数的工具：空参数当作 {}", async () => {
    const { stream } = await serve([{ toolCalls: [{ name: "now", arguments: "" }] }]);
    const { message } = await collect(stream);
    expect(message.content).toEqual([{ type: "toolCall", id: "call_1_1", name: "now", arguments: {} }]);
    expect(message.stopReason).toBe("toolUse");
  });

  it("finish_reason length → length", async () => {
    const { stream } = await serve([{ text: "写到一半", stopReason: "length" }]);
    const { message } = await collect(stream);
    expect(message.stopReason).toBe("length");
    expect(message.errorMessage).toBeUndefined();
  });

  it("finish_reason content_filter → error", async () => {
    const { stream } = await serve([{ text: "嗯", stopReason: "content_filter" }]);
    const { message } = await collect(stream);
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toBe("模型异常结束：finish_reason=content_filter");
  });

  it.each(["\n", "\r\n", "\r"] as const)("逐字节发送、行尾 %j：结果不变", async (lineEnding) => {
    const reply = { text: "中文😀混排", toolCalls: [{ id: "c1", name: "calc", arguments: { expression: "一+二" } }], lineEnding };
    const { server, stream } = await serve([{ ...reply, bytesPerWrite: 1 }, reply]);
    const counter = countingFetch();
    const bytewise = createOpenAIStream({ baseUrl: server.openaiBaseUrl, apiKey: KEY, model: "gpt-test", fetch: counter.fetch });
    const slow = await collect(bytewise);
    expect(counter.reads()).toBeGreaterThan(300); // 真的是一小块一小块读到的
    const fast = await collect(stream);
    expect(slow).toEqual(fast);
    expect(slow.message.content).toEqual([
      { type: "text", text: "中文😀混排" },
      { type: "toolCall", id: "c1", name: "calc", arguments: { expression: "一+二" } },
    ]);
  });

  it("只有 [DONE]、没有 finish_reason：算正常结束", async () => {
    const { stream } = await serve([{ raw: 'data: {"choices":[{"delta":{"content":"hi"}}]}\n\ndata: [DONE]\n\n' }]);
    const { message } = await collect(stream);
    expect(message).toEqual({ role: "assistant", content: [{ type: "text", text: "hi" }], stopReason: "stop" });
  });
});

describe("OpenAI Chat Completions：失败都变成 stopReason error，流从不抛异常", () => {
  it("HTTP 401：带错误类型与说明，服务器回显的密钥被抹掉", async () => {
    const body = { error: { message: `Incorrect API key provided: ${KEY}.`, type: "invalid_request_error", code: "invalid_api_key" } };
    const { stream } = await serve([{ httpError: 401, body }]);
    const { message } = await collect(stream);
    expect(message).toEqual({
      role: "assistant",
      content: [],
      stopReason: "error",
      errorMessage: "HTTP 401：invalid_request_error：Incorrect API key provided: ***.",
    });
  });

  it("HTTP 429：标准错误正文", async () => {
    const { stream } = await serve([{ httpError: 429, headers: { "retry-after": "2" } }]);
    expect((await collect(stream)).message.errorMessage).toBe("HTTP 429：rate_limit_error：Too Many Requests");
  });

  it("HTTP 502：不是 JSON 的正文取前 200 个字符", async () => {
    const page = `<html>${"网关出错了".repeat(100)}</html>`;
    const { stream } = await serve([{ httpError: 502, body: page }]);
    expect((await collect(stream)).message.errorMessage).toBe(`HTTP 502：${page.slice(0, 200)}`);
  });

  it("HTTP 500：空正文只报状态", async () => {
    const { stream } = await serve([{ httpError: 500, body: "" }]);
    expect((await collect(stream)).message.errorMessage).toBe("HTTP 500：Internal Server Error");
  });

  it("200 的流里来了错误事件：保留已收到的文本", async () => {
    const { stream } = await serve([{ text: "前半句", streamError: { type: "server_error", message: "The server had an error" } }]);
    const { message } = await collect(stream);
    expect(message).toEqual({
      role: "assistant",
      content: [{ type: "text", text: "前半句" }],
      stopReason: "error",
      errorMessage: "流中错误：server_error：The server had an error",
    });
  });

  it("连接中途被掐断：保留已收到的文本；服务器记下是它自己断的", async () => {
    const { server, stream } = await serve([{ text: "一二三四五六", dropAfterChunks: 4 }]);
    const { message } = await collect(stream);
    expect(message.stopReason).toBe("error");
    expect(message.content).toEqual([{ type: "text", text: "一二三四" }]);
    expect(message.errorMessage).toMatch(/^流在结束前中断：/);
    await eventually(() => expect(server.disconnects).toEqual([{ request: 0, path: "/v1/chat/completions", closedByClient: false }]));
  });

  it("流正常关闭却没有 finish_reason 也没有 [DONE]", async () => {
    const { stream } = await serve([{ text: "没说完", endWithoutFinish: true }]);
    const { message } = await collect(stream);
    expect(message.stopReason).toBe("error");
    expect(message.content).toEqual([{ type: "text", text: "没说完" }]);
    expect(message.errorMessage).toBe("流在结束前中断（没有收到 finish_reason）");
  });

  it("工具参数不是合法 JSON：错误里点名是哪个工具", async () => {
    const { stream } = await serve([{ text: "算", toolCalls: [{ name: "calc", arguments: '{"expression": "1+' }] }]);
    const { message } = await collect(stream);
    expect(message.stopReason).toBe("error");
    expect(message.content).toEqual([{ type: "text", text: "算" }]);
    expect(message.errorMessage).toMatch(/^工具 calc 的参数不是合法的 JSON：/);
  });

  it("畸形的数据行", async () => {
    const { stream } = await serve([{ raw: "data: {not json\n\n" }]);
    expect((await collect(stream)).message.errorMessage).toBe("无法解析的流数据：{not json");
  });

  it("连不上（ECONNREFUSED）", async () => {
    const server = await startProviderServer([]);
    await server.close(); // 端口随即空出来，没人监听
    const stream = createOpenAIStream({ baseUrl: server.openaiBaseUrl, apiKey: KEY, model: "m", maxRetries: 0 });
    const { message } = await collect(stream);
    expect(message.stopReason).toBe("error");
    expect(message.content).toEqual([]);
    expect(message.errorMessage).toMatch(/^网络错误：.*ECONNREFUSED/);
  });
});

describe("OpenAI Chat Completions：配置写错也不抛异常", () => {
  it("baseUrl 少了 http://：是设置写错，不是网络错误；说法与启动时的检查相同，带上出错的地址", async () => {
    const stream = createOpenAIStream({ baseUrl: "api.example.com/v1", apiKey: KEY, model: "m" });
    const { message } = await collect(stream);
    expect(message.errorMessage).toBe("构造请求失败：baseUrl 要以 http:// 或 https:// 开头，收到的是：api.example.com/v1");
  });

  it("请求体无法序列化（工具的参数说明里有环）：构造请求失败", async () => {
    const parameters: Record<string, unknown> = { type: "object" };
    parameters.self = parameters;
    const stream = createOpenAIStream({ baseUrl: "http://127.0.0.1:9/v1", apiKey: KEY, model: "m" });
    const { message } = await collect(stream, { ...HELLO, tools: [{ name: "loop", description: "", parameters }] });
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toMatch(/^构造请求失败：.*circular/);
  });
});

describe("OpenAI Chat Completions：取消", () => {
  it("流到一半取消：aborted，带着已收到的文本，不带 errorMessage；服务器看到客户端断开", async () => {
    const { server, stream } = await serve([{ text: "一二三四五六", hangAfterChunks: 4 }]);
    const controller = new AbortController();
    const { deltas, message } = await collect(stream, HELLO, { signal: controller.signal }, (_delta, index) => {
      if (index === 1) controller.abort();
    });
    expect(deltas).toEqual(["一二", "三四"]);
    expect(message).toEqual({ role: "assistant", content: [{ type: "text", text: "一二三四" }], stopReason: "aborted" });
    await eventually(() => expect(server.disconnects).toEqual([{ request: 0, path: "/v1/chat/completions", closedByClient: true }]));
  });

  it("连响应头都还没收到时取消", async () => {
    const { server, stream } = await serve([{ hang: true, sendHeaders: false }]);
    const controller = new AbortController();
    const pending = collect(stream, HELLO, { signal: controller.signal });
    await until(() => server.requests.length === 1, "服务器收到请求"); // 请求到了再取消：断开的是服务器见过的连接
    controller.abort();
    const { message } = await pending;
    expect(message).toEqual({ role: "assistant", content: [], stopReason: "aborted" });
    await eventually(() => expect(server.disconnects).toMatchObject([{ closedByClient: true }]));
  });

  it("收到响应头后一直等不到数据时取消", async () => {
    const { server, stream } = await serve([{ hang: true }]);
    const controller = new AbortController();
    const pending = collect(stream, HELLO, { signal: controller.signal });
    await until(() => server.requests.length === 1, "服务器收到请求"); // 请求到了再取消：断开的是服务器见过的连接
    controller.abort();
    const { message } = await pending;
    expect(message).toEqual({ role: "assistant", content: [], stopReason: "aborted" });
    await eventually(() => expect(server.disconnects).toMatchObject([{ closedByClient: true }]));
  });

  it("工具参数收到一半时取消：半截调用丢掉，完整的留下", async () => {
    const chunk = (delta: object): string => `data: ${JSON.stringify({ choices: [{ index: 0, delta, finish_reason: null }] })}\n\n`;
    const raw =
      chunk({ tool_calls: [{ index: 0, id: "c1", function: { name: "calc", arguments: '{"expression"' } }] }) +
      chunk({ tool_calls: [{ index: 0, function: { arguments: ':"1"}' } }] }) +
      chunk({ tool_calls: [{ index: 1, id: "c2", function: { name: "calc", arguments: '{"expr' } }] }) +
      chunk({ content: "…" }); // 收到这个增量时取消：此刻第二个调用只有半截参数
    const { stream } = await serve([{ raw, keepOpen: true }]);
    const controller = new AbortController();
    const { message } = await collect(stream, HELLO, { signal: controller.signal }, () => controller.abort());
    expect(message).toEqual({
      role: "assistant",
      content: [
        { type: "toolCall", id: "c1", name: "calc", arguments: { expression: "1" } },
        { type: "text", text: "…" },
      ],
      stopReason: "aborted",
    });
  });

  it("signal 早已取消：不发请求，直接 aborted", async () => {
    const { server, stream } = await serve([{ text: "不该出现" }]);
    const { message } = await collect(stream, HELLO, { signal: AbortSignal.abort() });
    expect(message).toEqual({ role: "assistant", content: [], stopReason: "aborted" });
    expect(server.requests).toEqual([]);
  });
});

describe("OpenAI Chat Completions：请求构造照 Pi 的 transformMessages", () => {
  it("出错/取消的助手消息不发；落单的工具调用补 No result provided", async () => {
    const { server, stream } = await serve([{ text: "好" }]);
    const context: Context = {
      messages: [
        { role: "user", content: "算两道" },
        {
          role: "assistant",
          stopReason: "toolUse",
          content: [
            { type: "toolCall", id: "c1", name: "calc", arguments: { expression: "1" } },
            { type: "toolCall", id: "c2", name: "calc", arguments: { expression: "2" } },
          ],
        },
        { role: "toolResult", toolCallId: "c1", toolName: "calc", content: "1" },
        { role: "assistant", stopReason: "aborted", content: [{ type: "text", text: "半句" }] },
        { role: "assistant", stopReason: "error", content: [], errorMessage: "HTTP 500：x" },
        { role: "user", content: "继续" },
      ],
    };
    await collect(stream, context);
    const body = server.requests[0]?.body as { messages: unknown[] };
    expect(body.messages).toEqual([
      { role: "user", content: "算两道" },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: "c1", type: "function", function: { name: "calc", arguments: '{"expression":"1"}' } },
          { id: "c2", type: "function", function: { name: "calc", arguments: '{"expression":"2"}' } },
        ],
      },
      { role: "tool", tool_call_id: "c1", content: "1" },
      { role: "tool", tool_call_id: "c2", content: "No result provided" },
      { role: "user", content: "继续" },
    ]);
  });
});
