/**
 * 本地脚本服务器（labs/scripted-provider/，它自己的测试在那里）按本步骤的剧本回答：
 * 我们的请求构造器编出的请求体，它还原得回来；step07 的那些剧本对话，走真实 HTTP（两种协议）得到的消息与 FakeModel 一样。
 */

import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { runAgentLoop } from "../src/agent-loop.js";
import { ExtensionHost, loadExtension } from "../src/extensions.js";
import { createFakeModel } from "../src/fake-model.js";
import { startLocalProvider } from "../src/local-provider.js";
import { contextFromRequest, type ProviderServer, type RecordedRequest } from "scripted-provider";
import { buildAnthropicRequest } from "../src/providers/anthropic-messages.js";
import { createProviderStream } from "../src/providers/index.js";
import { buildOpenAIRequest } from "../src/providers/openai-completions.js";
import { triggerOf } from "../src/rules.js";
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
});

describe("step07 的剧本对话走真实 HTTP：两种协议得到的消息与 FakeModel 相同", () => {
  let server: ProviderServer;
  const streams: Record<string, StreamFn> = {};
  beforeAll(async () => {
    server = await startLocalProvider();
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

  it("交互模式里的「说个长的」按服务器自己的节奏要吐 3 秒以上，来得及在吐字时按 Ctrl+C", async () => {
    // cli.ts 让本地服务器每发一个事件之前等多久
    const cli = fs.readFileSync(path.join(stepRoot, "src", "cli.ts"), "utf8");
    // 只认「chunkDelayMs: 数字」本身：npm run mutation 测的是改写过的 cli.ts，那里这个对象字面量被包在别的代码里、换了排版
    const found = [...cli.matchAll(/chunkDelayMs:\s*(\d+)/g)];
    expect(found, "cli.ts 里应当恰好有一处 chunkDelayMs").toHaveLength(1);
    const chunkDelayMs = Number(found[0]?.[1]);
    expect(chunkDelayMs).toBeGreaterThan(0);
    // 每个文字增量都是一个单独的事件，前面各有一次等待：吐完至少要「增量数 × chunkDelayMs」
    for (const api of ["openai", "anthropic"]) {
      let deltas = 0;
      for await (const event of streams[api]!({ messages: [{ role: "user", content: "说个长的" }] })) if (event.type === "text_delta") deltas++;
      expect(deltas * chunkDelayMs, `${api} 协议`).toBeGreaterThanOrEqual(3000);
    }
  });
});
