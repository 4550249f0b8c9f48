/**
 * 思考模型走一遍真实的 HTTP：本地脚本服务器发出推理（OpenAI 协议是 DeepSeek 的 reasoning_content，
 * Anthropic 是带签名的 thinking 块），循环把它显示成「思考> 」行、写进会话文件；
 * 调用工具之后的第二轮请求要过服务器的协议检查（推理没有原样带回来，就像真实服务一样回 400）。
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  ANTHROPIC_THINKING_ANSWER,
  ANTHROPIC_THINKING_SIGNATURE,
  ANTHROPIC_THINKING_TOOL_USE,
  DEEPSEEK_R1_THINKING,
  startProviderServer,
  type ProviderServer,
  type Script,
} from "scripted-provider";

import { runAgentLoop } from "../src/agent-loop.js";
import { createProviderStream, type ProviderApi } from "../src/providers/index.js";
import { renderEvents } from "../src/render.js";
import { Session } from "../src/session.js";
import { createBuiltinTools } from "../src/tools/index.js";
import type { Context } from "../src/types.js";
import { KEY } from "./helpers/providers.js";

let server: ProviderServer | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await server?.close();
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true, maxRetries: 10 });
});

/** 说一句话，跑完整个循环：显示出来的文字、会话文件里的消息、服务器收到的请求。 */
async function converse(api: ProviderApi, script: Script, text: string) {
  server = await startProviderServer(script);
  const baseUrl = api === "anthropic" ? server.anthropicBaseUrl : server.openaiBaseUrl;
  const streamFn = createProviderStream({ api, baseUrl, apiKey: KEY, model: "m" });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "thinking-"));
  dirs.push(dir);
  const session = Session.create(path.join(dir, "s.jsonl"));
  const context: Context = { messages: [{ role: "user", content: text }] };
  session.append(context.messages[0]!);
  let shown = "";
  const events = runAgentLoop({ streamFn, context, tools: createBuiltinTools(), toolContext: { cwd: dir } });
  await renderEvents(session.record(events), (chunk) => (shown += chunk));
  return { shown, saved: Session.open(session.file).messages(), requests: server.requests, context };
}

const THINKING = "用户要算 17*38，\n心算容易错，用 calc。";
const calcThenAnswer: Script = [
  { thinking: THINKING, toolCalls: [{ id: "call_1", name: "calc", arguments: { expression: "17*38" } }] },
  { text: "等于 646。" },
];

describe.each<ProviderApi>(["openai", "anthropic"])("思考模型（%s 协议，脚本服务器生成的流）", (api) => {
  it("推理显示成「思考> 」行，存进会话文件；第二轮请求通过服务器的协议检查", async () => {
    const { shown, saved, requests, context } = await converse(api, calcThenAnswer, "算 17*38");
    expect(shown).toContain("思考> 用户要算 17*38，\n思考> 心算容易错，用 calc。\n");
    expect(shown).toContain("[工具结果] calc → 646");
    expect(shown).toContain("助手> 等于 646。");
    expect(requests).toHaveLength(2);
    expect(context.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "stop" }); // 不是 400
    const thinking = saved.flatMap((m) => (m.role === "assistant" ? m.content : [])).filter((b) => b.type === "thinking");
    expect(thinking).toHaveLength(1);
    expect(thinking[0]).toMatchObject({ type: "thinking", thinking: THINKING });
    if (api === "anthropic") expect(thinking[0]).toHaveProperty("thinkingSignature");
    else expect(thinking[0]).not.toHaveProperty("thinkingSignature");
    // OpenAI 协议：调过工具的那条助手消息带着流出来的推理回去（DeepSeek 思考模式的规矩）
    const sent = (requests[1]?.body as { messages: Array<Record<string, unknown>> }).messages[1];
    if (api === "openai") expect(sent).toMatchObject({ role: "assistant", reasoning_content: THINKING, tool_calls: [{ id: "call_1" }] });
  });
});

describe("思考模型：回放照真实服务写的事件流", () => {
  it("DeepSeek-R1：reasoning_content 显示成思考行，回答照常；usage 照常读出", async () => {
    const { shown, saved } = await converse("openai", [{ raw: DEEPSEEK_R1_THINKING }], "9.11 和 9.9 哪个大");
    expect(shown).toBe("[第 1 轮]\n思考> 用户问 9.11 和 9.9 哪个大。比较小数部分：0.11 < 0.90。\n思考> 所以 9.9 更大。\n助手> 9.9 更大。\n[第 1 轮结束]\n");
    expect(saved.at(-1)).toMatchObject({
      role: "assistant",
      stopReason: "stop",
      content: [{ type: "thinking", thinking: "用户问 9.11 和 9.9 哪个大。比较小数部分：0.11 < 0.90。\n所以 9.9 更大。" }, { type: "text", text: "9.9 更大。" }],
    });
  });

  it("Anthropic extended thinking：第二轮的助手消息以带原签名的思考块开头，后面才是文字与 tool_use", async () => {
    const { shown, requests } = await converse("anthropic", [{ raw: ANTHROPIC_THINKING_TOOL_USE }, { raw: ANTHROPIC_THINKING_ANSWER }], "算 17*38");
    expect(shown).toContain("思考> 用户要算 17*38。心算容易错，\n思考> 用 calc 工具。\n助手> 我用 calc 算一下。\n");
    const sent = (requests[1]?.body as { messages: Array<{ role: string; content: unknown }> }).messages;
    expect(sent[1]).toEqual({
      role: "assistant",
      content: [
        { type: "thinking", thinking: "用户要算 17*38。心算容易错，\n用 calc 工具。", signature: ANTHROPIC_THINKING_SIGNATURE },
        { type: "text", text: "我用 calc 算一下。" },
        { type: "tool_use", id: "toolu_01D7FLrfh4GYq7yT1ULmeyMY", name: "calc", input: { expression: "17*38" } },
      ],
    });
  });
});
