/**
 * 官方 SDK 对我们的脚本服务器：openai 与 @anthropic-ai/sdk（钉住版本，只是 research 的开发依赖）
 * 流式消费服务器的每一种剧本，SDK 报告的内容必须等于剧本写的内容。
 * 服务器的协议哪里写错了（少了 tool_calls 的 index、message_stop 改了名……），就会有一个以剧本命名的测试失败。
 * 取消只在「服务器说请求到了」之后发生，从不按毫秒数。
 */
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterEach, describe, expect, it } from "vitest";
import { startServer, type ProfileName, type ProviderServer, type ScriptedReply, type Turn } from "../conformance/lab.ts";

let server: ProviderServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function serve(script: Turn[] | ((request: unknown, index: number) => Turn | Promise<Turn>)): Promise<ProviderServer> {
  server = await startServer(script as Turn[]);
  return server;
}

/** 用 SDK 的默认重试会把错误场景变成多次请求；要看重试时单独打开。 */
function openai(s: ProviderServer, maxRetries = 0): OpenAI {
  return new OpenAI({ apiKey: "sk-test", baseURL: s.openaiBaseUrl, maxRetries });
}
function anthropic(s: ProviderServer, maxRetries = 0): Anthropic {
  return new Anthropic({ apiKey: "sk-ant-test", baseURL: s.anthropicBaseUrl, maxRetries });
}

const ASK = [{ role: "user" as const, content: "你好" }];

// ── 剧本：每个都写明期望 SDK 报告什么 ─────────────────────────────

interface ReplyCase {
  name: string;
  reply: ScriptedReply;
  /** 剧本给的文字、工具调用、用量与停止原因（两种协议各自的名字）。 */
  text: string;
  toolCalls: Array<{ name: string; arguments: Record<string, unknown> }>;
  usage: { input: number; output: number; cacheRead: number };
  stop: { openai: string; anthropic: string };
}

const CALLS = [
  { id: "call_a", name: "calc", arguments: { expression: "(1 + 2) * 3", note: "括号 {里} 有\"引号\"" } },
  { id: "call_b", name: "read_file", arguments: { path: "demo-files/hello.txt" } },
  { id: "call_c", name: "calc", arguments: { expression: "2 ** 10" } },
];
const expectedCalls = CALLS.map(({ name, arguments: args }) => ({ name, arguments: args }));

const REPLIES: ReplyCase[] = [
  {
    name: "纯文本（含 emoji 与中文，两字一片）",
    reply: { text: "你好，世界！👋 第二句。" },
    text: "你好，世界！👋 第二句。",
    toolCalls: [],
    usage: { input: 10, output: Array.from("你好，世界！👋 第二句。").length, cacheRead: 0 },
    stop: { openai: "stop", anthropic: "end_turn" },
  },
  {
    name: "三个工具调用，参数每 3 个字符一片",
    reply: { text: "我来算。", toolCalls: CALLS, argsChunkSize: 3 },
    text: "我来算。",
    toolCalls: expectedCalls,
    usage: { input: 10, output: 4, cacheRead: 0 },
    stop: { openai: "tool_calls", anthropic: "tool_use" },
  },
  {
    name: "三个工具调用的参数碎片交错发出",
    reply: { toolCalls: CALLS, argsChunkSize: 2, interleaveToolCalls: true },
    text: "",
    toolCalls: expectedCalls,
    usage: { input: 10, output: 0, cacheRead: 0 },
    stop: { openai: "tool_calls", anthropic: "tool_use" },
  },
  {
    name: "逐字节发送（文字加工具调用）",
    reply: { text: "一字一字👀", toolCalls: CALLS.slice(0, 1), bytesPerWrite: 1 },
    text: "一字一字👀",
    toolCalls: expectedCalls.slice(0, 1),
    usage: { input: 10, output: 5, cacheRead: 0 },
    stop: { openai: "tool_calls", anthropic: "tool_use" },
  },
  {
    name: "用量含缓存命中",
    reply: { text: "ok", usage: { input: 100, cacheRead: 40, output: 7 } },
    text: "ok",
    toolCalls: [],
    usage: { input: 100, output: 7, cacheRead: 40 },
    stop: { openai: "stop", anthropic: "end_turn" },
  },
  {
    name: "length 停止",
    reply: { text: "说到一半", stopReason: "length" },
    text: "说到一半",
    toolCalls: [],
    usage: { input: 10, output: 4, cacheRead: 0 },
    stop: { openai: "length", anthropic: "max_tokens" },
  },
  {
    name: "其他停止原因原样发出（content_filter）",
    reply: { text: "", stopReason: "content_filter" },
    text: "",
    toolCalls: [],
    usage: { input: 10, output: 0, cacheRead: 0 },
    stop: { openai: "content_filter", anthropic: "content_filter" },
  },
];

describe("openai SDK 流式读取脚本服务器", () => {
  for (const c of REPLIES) {
    it(c.name, async () => {
      const s = await serve([c.reply]);
      const stream = openai(s).chat.completions.stream({
        model: "scripted",
        messages: ASK,
        stream_options: { include_usage: true },
      });
      const final = await stream.finalChatCompletion();
      const choice = final.choices[0];
      expect(choice?.message.content ?? "").toBe(c.text);
      const calls = (choice?.message.tool_calls ?? []).map((call) => {
        if (call.type !== "function") throw new Error(`意外的工具调用类型：${call.type}`);
        return { name: call.function.name, arguments: JSON.parse(call.function.arguments) as Record<string, unknown> };
      });
      expect(calls).toEqual(c.toolCalls);
      // 工具调用的编号：剧本给了就用剧本的
      if (c.reply.toolCalls) expect(choice?.message.tool_calls?.map((call) => call.id)).toEqual(c.reply.toolCalls.map((call) => call.id));
      expect(choice?.finish_reason).toBe(c.stop.openai);
      expect(final.usage).toMatchObject({
        prompt_tokens: c.usage.input + c.usage.cacheRead,
        completion_tokens: c.usage.output,
        prompt_tokens_details: { cached_tokens: c.usage.cacheRead },
      });
    });
  }
});

describe("@anthropic-ai/sdk 流式读取脚本服务器", () => {
  for (const c of REPLIES) {
    it(c.name, async () => {
      const s = await serve([c.reply]);
      const stream = anthropic(s).messages.stream({ model: "scripted", max_tokens: 100, messages: ASK });
      const seen: string[] = [];
      for await (const event of stream) seen.push(event.type);
      const final = await stream.finalMessage();
      // 事件的先后：开头 message_start，结尾 message_delta 之后是 message_stop
      expect(seen[0]).toBe("message_start");
      expect(seen.slice(-2)).toEqual(["message_delta", "message_stop"]);
      const text = final.content.map((block) => (block.type === "text" ? block.text : "")).join("");
      expect(text).toBe(c.text);
      const calls = final.content.flatMap((block) =>
        block.type === "tool_use" ? [{ name: block.name, arguments: block.input as Record<string, unknown> }] : [],
      );
      expect(calls).toEqual(c.toolCalls);
      if (c.reply.toolCalls) {
        expect(final.content.flatMap((block) => (block.type === "tool_use" ? [block.id] : []))).toEqual(c.reply.toolCalls.map((call) => call.id));
      }
      expect(final.stop_reason).toBe(c.stop.anthropic);
      expect(final.usage).toMatchObject({
        input_tokens: c.usage.input,
        output_tokens: c.usage.output,
        cache_read_input_tokens: c.usage.cacheRead,
      });
    });
  }
});

// ── HTTP 错误：状态码、错误类型、说明、响应头 ─────────────────────

interface ErrorCase {
  name: string;
  turn: { httpError: number; headers?: Record<string, string>; message?: string };
  type: string;
  message: string;
}

const ERRORS: ErrorCase[] = [
  { name: "429 带 retry-after-ms", turn: { httpError: 429, headers: { "retry-after-ms": "1500" } }, type: "rate_limit_error", message: "Too Many Requests" },
  { name: "500 服务器错误", turn: { httpError: 500 }, type: "api_error", message: "Internal Server Error" },
  { name: "529 过载", turn: { httpError: 529, headers: { "x-should-retry": "true" } }, type: "overloaded_error", message: "Overloaded" },
  { name: "401 密钥不对", turn: { httpError: 401 }, type: "authentication_error", message: "Unauthorized" },
  {
    name: "400 上下文溢出的说明",
    turn: { httpError: 400, message: "prompt is too long: 213000 tokens > 200000 maximum" },
    type: "invalid_request_error",
    message: "prompt is too long: 213000 tokens > 200000 maximum",
  },
  {
    name: "429 额度用完（insufficient_quota）",
    turn: { httpError: 429, message: "You exceeded your current quota (insufficient_quota)." },
    type: "rate_limit_error",
    message: "You exceeded your current quota (insufficient_quota).",
  },
];

describe("HTTP 错误：SDK 报告的状态码、类型、说明与响应头", () => {
  for (const c of ERRORS) {
    it(`openai：${c.name}`, async () => {
      const s = await serve([c.turn]);
      const error = await openai(s).chat.completions.create({ model: "scripted", messages: ASK, stream: true }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(OpenAI.APIError);
      const apiError = error as InstanceType<typeof OpenAI.APIError>;
      expect(apiError.status).toBe(c.turn.httpError);
      expect(apiError.type).toBe(c.type);
      expect(apiError.message).toContain(c.message);
      for (const [name, value] of Object.entries(c.turn.headers ?? {})) expect(apiError.headers?.get(name)).toBe(value);
      expect(s.requests).toHaveLength(1);
    });
    it(`anthropic：${c.name}`, async () => {
      const s = await serve([c.turn]);
      const error = await anthropic(s).messages.create({ model: "scripted", max_tokens: 100, messages: ASK, stream: true }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(Anthropic.APIError);
      const apiError = error as InstanceType<typeof Anthropic.APIError>;
      expect(apiError.status).toBe(c.turn.httpError);
      expect((apiError.error as { error?: { type?: string } }).error?.type).toBe(c.type);
      expect(apiError.message).toContain(c.message);
      for (const [name, value] of Object.entries(c.turn.headers ?? {})) expect(apiError.headers?.get(name)).toBe(value);
      expect(s.requests).toHaveLength(1);
    });
  }

  // SDK 自己的重试读得懂服务器给的头：retry-after-ms 让它重试，x-should-retry: false 让它放弃
  it("openai：429 带 retry-after-ms 时 SDK 重试一次后成功", async () => {
    const s = await serve([{ httpError: 429, headers: { "retry-after-ms": "1" } }, { text: "好了" }]);
    const final = await openai(s, 1).chat.completions.stream({ model: "scripted", messages: ASK }).finalChatCompletion();
    expect(final.choices[0]?.message.content).toBe("好了");
    expect(s.requests).toHaveLength(2);
  });
  it("anthropic：429 带 retry-after-ms 时 SDK 重试一次后成功", async () => {
    const s = await serve([{ httpError: 429, headers: { "retry-after-ms": "1" } }, { text: "好了" }]);
    const final = await anthropic(s, 1).messages.stream({ model: "scripted", max_tokens: 100, messages: ASK }).finalMessage();
    expect(final.content.map((block) => (block.type === "text" ? block.text : block.type))).toEqual(["好了"]);
    expect(s.requests).toHaveLength(2);
  });
  it("openai 与 anthropic：500 带 x-should-retry: false 时 SDK 不重试", async () => {
    const s = await serve([{ httpError: 500, headers: { "x-should-retry": "false" } }, { httpError: 500, headers: { "x-should-retry": "false" } }]);
    await expect(openai(s, 2).chat.completions.create({ model: "scripted", messages: ASK, stream: true })).rejects.toMatchObject({ status: 500 });
    await expect(anthropic(s, 2).messages.create({ model: "scripted", max_tokens: 100, messages: ASK, stream: true })).rejects.toMatchObject({ status: 500 });
    expect(s.requests).toHaveLength(2);
  });
});

// ── 流里出的事：流中报错、连接被掐断、取消 ─────────────────────────

describe("流中报错、掐断与取消", () => {
  const streamError = { text: "说了一半", streamError: { type: "overloaded_error", message: "流里的错误 overloaded" } };

  it("openai：200 的流里报错，SDK 抛出带说明的错误", async () => {
    const s = await serve([streamError]);
    const stream = openai(s).chat.completions.stream({ model: "scripted", messages: ASK });
    await expect(stream.finalChatCompletion()).rejects.toThrow("流里的错误 overloaded");
  });
  it("anthropic：200 的流里报错，SDK 抛出带类型与说明的错误", async () => {
    const s = await serve([streamError]);
    const stream = anthropic(s).messages.stream({ model: "scripted", max_tokens: 100, messages: ASK });
    await expect(stream.finalMessage()).rejects.toThrow(/overloaded_error[\s\S]*流里的错误 overloaded/);
  });

  // 文字发到一半服务器掐断连接：SDK 必须报错，而不是把半句话当成完整回复
  it("openai：连接在文字中途被掐断", async () => {
    const s = await serve([{ text: "这句话说不完", dropAfterChunks: 4 }]);
    const stream = openai(s).chat.completions.stream({ model: "scripted", messages: ASK });
    await expect(stream.finalChatCompletion()).rejects.toThrow();
    expect(s.disconnects).toEqual([expect.objectContaining({ request: 0, closedByClient: false })]);
  });
  it("anthropic：连接在文字中途被掐断", async () => {
    const s = await serve([{ text: "这句话说不完", dropAfterChunks: 5 }]);
    const stream = anthropic(s).messages.stream({ model: "scripted", max_tokens: 100, messages: ASK });
    await expect(stream.finalMessage()).rejects.toThrow();
    expect(s.disconnects).toEqual([expect.objectContaining({ request: 0, closedByClient: false })]);
  });

  it("anthropic：正常关闭但没有 message_stop，SDK 不当它是完整回复", async () => {
    const s = await serve([{ text: "没有结尾", endWithoutFinish: true }]);
    const stream = anthropic(s).messages.stream({ model: "scripted", max_tokens: 100, messages: ASK });
    await expect(stream.finalMessage()).rejects.toThrow();
  });

  // 取消：等服务器记下请求、吐出第一段文字之后再取消，服务器看到的是客户端先断开
  it("openai 与 anthropic：收到第一段文字后取消，服务器记下客户端断开", async () => {
    const s = await serve([
      { text: "一二三四五六", hangAfterChunks: 3 },
      { text: "一二三四五六", hangAfterChunks: 4 },
    ]);
    const oa = openai(s).chat.completions.stream({ model: "scripted", messages: ASK });
    const first = new Promise<string>((resolve) => oa.on("content", (delta) => resolve(delta)));
    await expect(first).resolves.toBe("一二");
    oa.abort();
    await expect(oa.finalChatCompletion()).rejects.toThrow();

    const an = anthropic(s).messages.stream({ model: "scripted", max_tokens: 100, messages: ASK });
    const firstText = new Promise<string>((resolve) => an.on("text", (delta) => resolve(delta)));
    await expect(firstText).resolves.toBe("一二");
    an.abort();
    await expect(an.finalMessage()).rejects.toThrow();
    await waitFor(() => s.disconnects.length === 2);
    expect(s.disconnects.map((d) => [d.request, d.closedByClient])).toEqual([
      [0, true],
      [1, true],
    ]);
  });
});

/** 等一个条件成立：每轮让出事件循环，不按毫秒数等。 */
async function waitFor(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setImmediate(resolve));
}

// ── 思考模型、重定向、不是事件流的 200 ─────────────────────────────

describe("思考模型", () => {
  const THINKING = "先想一想：要算 1+2，再看看要不要调用工具。";

  it("anthropic：思考块带签名，原样送回时服务器放行，签名被改就 400", async () => {
    const reply = { thinking: THINKING, text: "我来算。", toolCalls: [{ id: "toolu_t", name: "calc", arguments: { expression: "1+2" } }] };
    const s = await serve([reply, { text: "等于 3。" }, { text: "不该走到这里" }]);
    const client = anthropic(s);
    const first = await client.messages.stream({ model: "scripted", max_tokens: 100, messages: ASK }).finalMessage();
    const [thinking, ...rest] = first.content;
    if (thinking?.type !== "thinking") throw new Error(`第一块应当是思考块，收到的是 ${thinking?.type}`);
    expect(thinking.thinking).toBe(THINKING);
    expect(thinking.signature).not.toBe("");
    expect(rest.map((block) => block.type)).toEqual(["text", "tool_use"]);

    // 真实客户端的第二轮：助手消息原样送回（思考块在最前面），后跟工具结果
    const followUp = (assistantContent: typeof first.content) => [
      ...ASK,
      { role: "assistant" as const, content: assistantContent },
      { role: "user" as const, content: [{ type: "tool_result" as const, tool_use_id: "toolu_t", content: "3" }] },
    ];
    const second = await client.messages.stream({ model: "scripted", max_tokens: 100, messages: followUp(first.content) }).finalMessage();
    expect(second.content.map((block) => (block.type === "text" ? block.text : block.type))).toEqual(["等于 3。"]);

    const tampered = [{ ...thinking, signature: `${thinking.signature}x` }, ...rest];
    await expect(client.messages.create({ model: "scripted", max_tokens: 100, messages: followUp(tampered) })).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining("Invalid `signature`"),
    });
  });

  it("openai：推理在 reasoning_content 增量里、先于回答（DeepSeek 的形状）", async () => {
    const s = await serve([{ thinking: THINKING, text: "等于 3。" }]);
    const stream = await openai(s).chat.completions.create({ model: "scripted", messages: ASK, stream: true });
    let reasoning = "";
    let content = "";
    let reasoningAfterContent = false;
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta as { content?: string | null; reasoning_content?: string } | undefined;
      if (delta?.reasoning_content) {
        reasoning += delta.reasoning_content;
        if (content) reasoningAfterContent = true;
      }
      if (delta?.content) content += delta.content;
    }
    expect({ reasoning, content, reasoningAfterContent }).toEqual({ reasoning: THINKING, content: "等于 3。", reasoningAfterContent: false });
  });
});

describe("各家服务的口音（profiles）：官方 openai SDK 照样读得懂", () => {
  const PROFILES: ProfileName[] = ["deepseek", "kimi", "qwen", "glm", "siliconflow", "ollama", "vllm"];
  it.each(PROFILES)("%s：流式读到的工具调用与剧本一致，没有异常", async (profile) => {
    server = await startServer([{ text: "算一下。", toolCalls: [CALLS[0]!] }], { profile });
    const stream = await openai(server).chat.completions.create({ model: "scripted", messages: ASK, stream: true, stream_options: { include_usage: true } });
    let args = "";
    let name = "";
    let finish: string | null = null;
    for await (const chunk of stream) {
      for (const call of chunk.choices[0]?.delta.tool_calls ?? []) {
        name ||= call.function?.name ?? "";
        args += call.function?.arguments ?? "";
      }
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect({ name, args: JSON.parse(args) as unknown, finish }).toEqual({ name: "calc", args: CALLS[0]!.arguments, finish: "tool_calls" });
  });

  it("ollama 老版本不给 index：SDK 的 stream() 帮手拼不出调用而报错（ollama/ollama#7881 说的正是它）；带 index 的 glm 照常拼出", async () => {
    server = await startServer([{ toolCalls: [CALLS[0]!] }], { profile: "ollama" });
    await expect(openai(server).chat.completions.stream({ model: "scripted", messages: ASK }).finalChatCompletion()).rejects.toThrow(/invalid tool call index/);
    await server.close();
    server = await startServer([{ toolCalls: [CALLS[0]!] }], { profile: "glm" });
    const done = await openai(server).chat.completions.stream({ model: "scripted", messages: ASK }).finalChatCompletion();
    expect(done.choices[0]?.message.tool_calls?.map((call) => call.type === "function" && call.function.name)).toEqual(["calc"]);
  });
});

describe("重定向与不是事件流的 200", () => {
  it("openai 与 anthropic：307 重定向到同一主机的路径，SDK 跟过去拿到回复", async () => {
    const s = await serve([
      { redirect: 307, location: "/v1/chat/completions" },
      { text: "跟过来了" },
      { redirect: 307, location: "/v1/messages" },
      { text: "跟过来了" },
    ]);
    const a = await openai(s).chat.completions.stream({ model: "scripted", messages: ASK }).finalChatCompletion();
    expect(a.choices[0]?.message.content).toBe("跟过来了");
    const b = await anthropic(s).messages.stream({ model: "scripted", max_tokens: 100, messages: ASK }).finalMessage();
    expect(b.content.map((block) => (block.type === "text" ? block.text : block.type))).toEqual(["跟过来了"]);
    expect(s.requests.map((r) => r.path)).toEqual(["/v1/chat/completions", "/v1/chat/completions", "/v1/messages", "/v1/messages"]);
  });

  it("openai 与 anthropic：200 但正文是网页，SDK 报错而不是给出一条空回复", async () => {
    const page = { notStream: "<html><body>请先登录 Wi-Fi</body></html>", contentType: "text/html" };
    const s = await serve([page, page]);
    await expect(openai(s).chat.completions.stream({ model: "scripted", messages: ASK }).finalChatCompletion()).rejects.toThrow();
    await expect(anthropic(s).messages.stream({ model: "scripted", max_tokens: 100, messages: ASK }).finalMessage()).rejects.toThrow();
  });
});
