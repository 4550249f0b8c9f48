/**
 * 本地脚本服务器背后的剧本模型：从请求体还原上下文、按 rules.ts 挑回复、注入故障。
 * 最重要的一条：step07 的那些剧本对话，走真实 HTTP（两种协议）得到的消息与 FakeModel 一样。
 */

import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { runAgentLoop } from "../src/agent-loop.js";
import { ExtensionHost, loadExtension } from "../src/extensions.js";
import { createFakeModel } from "../src/fake-model.js";
import { startProviderServer, type ProviderServer, type RecordedRequest } from "../src/provider-server.js";
import { buildAnthropicRequest } from "../src/providers/anthropic-messages.js";
import { createProviderStream } from "../src/providers/index.js";
import { buildOpenAIRequest } from "../src/providers/openai-completions.js";
import { triggerOf } from "../src/rules.js";
import { contextFromRequest, replyTo, scriptedProvider } from "../src/scripted-provider.js";
import { createBuiltinTools } from "../src/tools/index.js";
import type { Context, Message, StreamFn } from "../src/types.js";
import { stepRoot } from "./helpers/cli.js";

const request = (api: "openai" | "anthropic", body: unknown): RecordedRequest => ({
  method: "POST",
  path: api === "openai" ? "/v1/chat/completions" : "/v1/messages",
  api,
  headers: {},
  body,
});

/** 一段带工具调用与工具结果的历史：用我们自己的请求构造器把它编成两种协议的请求体。 */
const HISTORY: Context = {
  messages: [
    { role: "user", content: "帮我算 1/0" },
    { role: "assistant", stopReason: "toolUse", content: [{ type: "text", text: "我用 calc 算一下。" }, { type: "toolCall", id: "call_1", name: "calc", arguments: { expression: "1/0" } }] },
    { role: "toolResult", toolCallId: "call_1", toolName: "calc", content: "工具 calc 出错：除数不能为 0", isError: true },
  ],
};
const config = { baseUrl: "http://unused", apiKey: "", model: "m" };

describe("contextFromRequest：从请求体还原规则需要的上下文", () => {
  it.each([
    ["openai", buildOpenAIRequest(config, HISTORY)],
    ["anthropic", buildAnthropicRequest(config, HISTORY)],
  ] as const)("%s：工具结果的工具名从对应的调用里找回来，触发词是 toolResult:calc", (api, body) => {
    const context = contextFromRequest(request(api, body));
    expect(context.messages).toEqual(HISTORY.messages);
    expect(triggerOf(context)).toBe("toolResult:calc");
  });

  it("OpenAI 的 tool 消息没有 is_error：按工具的报错措辞猜；普通结果不算错误", () => {
    const body = { messages: [{ role: "tool", tool_call_id: "x", content: "未注册的工具：upper" }, { role: "tool", tool_call_id: "y", content: "646" }] };
    const [failed, ok] = contextFromRequest(request("openai", body)).messages;
    expect(failed).toMatchObject({ isError: true, toolName: "" });
    expect(ok).not.toHaveProperty("isError");
  });

  it.each(["工具 sleep 执行超时（50ms）", "工具 sleep 被取消", "读取被取消：a.txt"])("step09 的超时与取消结果也算错误：%s", (content) => {
    const [result] = contextFromRequest(request("openai", { messages: [{ role: "tool", tool_call_id: "x", content }] })).messages;
    expect(result).toMatchObject({ isError: true });
  });

  it("内容可以是文本块数组；坏掉的请求体不抛异常，只是没有消息", () => {
    const blocks = { messages: [{ role: "user", content: [{ type: "text", text: "我叫" }, { type: "text", text: "小明" }] }] };
    expect(contextFromRequest(request("openai", blocks)).messages).toEqual([{ role: "user", content: "我叫小明" }]);
    for (const body of [undefined, "not json", { messages: "x" }, { messages: [null, 1, { role: "tool" }] }]) {
      expect(() => contextFromRequest(request("openai", body))).not.toThrow();
    }
  });
});

describe("replyTo / scriptedProvider", () => {
  it("规则带 error：先说话，再在流里报错，不调工具", () => {
    expect(replyTo(request("openai", { messages: [{ role: "user", content: "出个错" }] }))).toEqual({
      text: "好的，我这就开始回答",
      streamError: { type: "api_error", message: "模拟的模型服务错误：连接被对方重置" },
    });
  });

  it("规则自己抛异常：变成流里的错误，服务器不崩", () => {
    const rules = [{ on: "", reply: () => { throw new Error("规则坏了"); } }];
    expect(replyTo(request("openai", { messages: [] }), rules)).toEqual({ streamError: { type: "api_error", message: "剧本规则出错：规则坏了" } });
  });

  it("故障：HTTP 错误与挂起原样返回；其余的叠加在剧本回复上", () => {
    const faults = [{ httpError: 429 }, { hang: true as const }, { hangAfterChunks: 3 }, undefined];
    const script = scriptedProvider({ chunkDelayMs: 5, fault: (index) => faults[index] });
    const hello = request("openai", { messages: [{ role: "user", content: "我叫小明" }] });
    expect(script(hello, 0)).toEqual({ httpError: 429 });
    expect(script(hello, 1)).toEqual({ hang: true });
    expect(script(hello, 2)).toEqual({ text: "你好，小明！我记住了。", toolCalls: [], chunkDelayMs: 5, hangAfterChunks: 3 });
    expect(script(hello, 3)).toEqual({ text: "你好，小明！我记住了。", toolCalls: [], chunkDelayMs: 5 });
  });
});

describe("step07 的剧本对话走真实 HTTP：两种协议得到的消息与 FakeModel 相同", () => {
  let server: ProviderServer;
  const streams: Record<string, StreamFn> = {};
  beforeAll(async () => {
    server = await startProviderServer(scriptedProvider());
    streams.openai = createProviderStream({ api: "openai", baseUrl: server.openaiBaseUrl, apiKey: "local", model: "m" });
    streams.anthropic = createProviderStream({ api: "anthropic", baseUrl: server.anthropicBaseUrl, apiKey: "local", model: "m" });
  });
  afterAll(() => server.close());

  /** 把几句话依次说给一个模型听，返回最后的全部消息。 */
  async function converse(streamFn: StreamFn, lines: string[], withUpper: boolean): Promise<Message[]> {
    const tools = createBuiltinTools();
    if (withUpper) await loadExtension(path.join(stepRoot, "extensions", "logger.ts"), new ExtensionHost(tools));
    const context: Context = { messages: [] };
    for (const line of lines) {
      context.messages.push({ role: "user", content: line });
      for await (const event of runAgentLoop({ streamFn, context, tools, toolContext: { cwd: stepRoot } })) void event;
    }
    return context.messages;
  }

  /** 真实模型才有的 usage 去掉；流里报的错多了一个「流中错误：类型：」前缀，也去掉。 */
  const normalize = (messages: Message[]): Message[] =>
    messages.map((message) => {
      if (message.role !== "assistant") return message;
      const { usage: _usage, ...rest } = message;
      return rest.errorMessage ? { ...rest, errorMessage: rest.errorMessage.replace(/^流中错误：api_error：/, "") } : rest;
    });

  const conversations: Array<[name: string, lines: string[], withUpper: boolean]> = [
    ["记忆", ["我叫小明", "我叫什么"], false],
    ["calc", ["帮我算 17*38"], false],
    ["calc 出错", ["帮我算 1/0"], false],
    ["read_file", ["读一下 extensions/logger.ts"], false],
    ["read_file 出错", ["读一下 ../outside.txt", "读一下 nope.txt", "读一下 src"], false],
    ["upper 未注册", ["把 abc 转成大写"], false],
    ["upper 来自扩展", ["把 mini agent harness 转成大写"], true],
    ["长回复", ["说个长的"], false],
    ["兜底", ["今天天气怎么样"], false],
    ["模型出错后继续", ["出个错", "我叫小红", "我叫什么"], false],
  ];

  it.each(conversations)("%s", async (_name, lines, withUpper) => {
    const expected = await converse(createFakeModel(), lines, withUpper);
    for (const api of ["openai", "anthropic"]) {
      const actual = normalize(await converse(streams[api]!, lines, withUpper));
      expect(actual, `${api} 协议`).toEqual(expected);
    }
  });

});
