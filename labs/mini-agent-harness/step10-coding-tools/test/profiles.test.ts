/**
 * 读者最常接的几家服务（labs/scripted-provider 的 profiles：DeepSeek、Kimi、通义千问、GLM、硅基流动、Ollama、vLLM）。
 * 同一段两轮的工具对话，每一家都要走通：推理显示出来、存进消息，用量不管放在哪都读到，
 * DeepSeek 的第二轮请求带回调过工具那条消息的 reasoning_content（不带它就 400）；每一家的错误正文都说出服务器的原话。
 * step09 多两件事：每一份错误正文过一遍分类器（欠费、余额不足不重试，哪怕是 429），以及整条重试链上真的只问一次。
 */
import { afterEach, describe, expect, it } from "vitest";
import { PROFILE_NAMES, PROFILES, scriptedProvider, startProviderServer, type ProfileName, type ProviderServer } from "scripted-provider";

import { runAgentLoop } from "../src/agent-loop.js";
import { decideReply } from "../src/fake-model.js";
import { createProviderStream } from "../src/providers/index.js";
import { renderEvents } from "../src/render.js";
import { classifyAssistantError, type ErrorClass } from "../src/retry/classify.js";
import { runWithRetry } from "../src/retry/turn-retry.js";
import { createBuiltinTools } from "../src/tools/index.js";
import type { AssistantMessage, Context, HarnessEvent } from "../src/types.js";
import { KEY } from "./helpers/providers.js";

let server: ProviderServer | undefined;
afterEach(async () => {
  await server?.close();
});

/** 照这一家的样子起服务器（剧本是 rules.ts），问一句，跑完整个循环；返回屏幕、上下文与服务器收到的请求体。 */
async function converse(profile: ProfileName, text: string, fault?: Parameters<typeof scriptedProvider>[0]["fault"]) {
  server = await startProviderServer(scriptedProvider({ answer: decideReply, ...(fault ? { fault } : {}) }), { profile });
  // HTTP 层不重试：一个请求一行错误（重试链在下面单独测）
  const streamFn = createProviderStream({ api: "openai", baseUrl: server.openaiBaseUrl, apiKey: KEY, model: "m", maxRetries: 0 });
  const context: Context = { messages: [{ role: "user", content: text }] };
  let shown = "";
  await renderEvents(runAgentLoop({ streamFn, context, tools: createBuiltinTools(), toolContext: { cwd: process.cwd() } }), (chunk) => (shown += chunk));
  const bodies = server.requests.map((request) => request.body as { messages: Array<Record<string, unknown>> });
  return { shown, context, bodies };
}

describe.each(PROFILE_NAMES)("%s：两轮的工具对话", (profile) => {
  it("调 calc、拿到 646、答出「结果是 646。」；两条助手消息都记下用量；推理显示成「思考> 」并存进消息", async () => {
    const { shown, context, bodies } = await converse(profile, "帮我算 17*38");
    expect(shown).toContain("[工具调用] calc {\"expression\":\"17*38\"}");
    expect(shown).toContain("[工具结果] calc → 646");
    expect(shown).toContain("助手> 结果是 646。");
    expect(bodies).toHaveLength(2);
    const [call, result, answer] = context.messages.slice(1) as [AssistantMessage, unknown, AssistantMessage];
    expect(call).toMatchObject({ role: "assistant", stopReason: "toolUse" });
    expect(result).toMatchObject({ role: "toolResult", toolName: "calc", content: "646" });
    expect(answer).toMatchObject({ role: "assistant", stopReason: "stop" });
    // 用量不管在 chunk.usage、收尾那一块的顶层，还是 Kimi 的 choices[0].usage，都读到了
    for (const message of [call, answer]) expect(message.usage).toMatchObject({ input: 10, cacheRead: 0 });
    const thinking = PROFILES[profile].thinking;
    if (thinking === undefined) {
      expect(call.content.some((block) => block.type === "thinking")).toBe(false);
    } else {
      expect(call.content[0]).toEqual({ type: "thinking", thinking });
      expect(shown).toContain(`思考> ${thinking}`);
    }
    // 第二个请求里那条调过工具的助手消息：有推理就带着原样的推理回去（DeepSeek 的服务器会查）
    const sent = bodies[1]?.messages[1];
    expect(sent).toMatchObject({ role: "assistant", tool_calls: [{ id: "call_1", function: { name: "calc" } }] });
    if (thinking === undefined) expect(sent).not.toHaveProperty("reasoning_content");
    else expect(sent?.reasoning_content).toBe(thinking);
  });
});

describe("没调工具的回复：推理不送回（DeepSeek 会忽略它，多送只是多花 token）", () => {
  it("deepseek：第二句话的请求里，第一句的回答不带 reasoning_content", async () => {
    server = await startProviderServer(scriptedProvider({ answer: decideReply }), { profile: "deepseek" });
    const streamFn = createProviderStream({ api: "openai", baseUrl: server.openaiBaseUrl, apiKey: KEY, model: "m" });
    const context: Context = { messages: [{ role: "user", content: "我叫小明" }] };
    const run = async (): Promise<void> => {
      for await (const event of runAgentLoop({ streamFn, context, tools: createBuiltinTools(), toolContext: { cwd: process.cwd() } })) void event;
    };
    await run();
    context.messages.push({ role: "user", content: "我叫什么" });
    await run();
    const sent = (server.requests[1]?.body as { messages: Array<Record<string, unknown>> }).messages;
    expect(sent[1]).toEqual({ role: "assistant", content: "你好，小明！我记住了。" });
    expect(context.messages.at(-1)).toMatchObject({ stopReason: "stop", content: [{ type: "thinking" }, { type: "text", text: "你叫小明。" }] });
  });
});

describe("每一家的错误正文：一行 [错误]，说出服务器的原话（有错误码就带上）", () => {
  // 最后一列：分类器的结论。欠费、余额不足即使是 429 也不重试；只有硅基流动的 TPM 限流值得再试
  const expected: Array<[ProfileName, number, string, ErrorClass]> = [
    ["deepseek", 402, "HTTP 402：unknown_error：Insufficient Balance", "fatal"],
    ["deepseek", 400, "HTTP 400：invalid_request_error：The `reasoning_content` in the thinking mode must be passed back to the API.", "fatal"],
    [
      "kimi",
      429,
      "HTTP 429：exceeded_current_quota_error：Your account org-0000 <ak-0000> is suspended due to insufficient balance, please recharge your account or check your plan and billing details",
      "fatal",
    ],
    ["qwen", 400, "HTTP 400：Arrearage：Access denied, please make sure your account is in good standing.", "fatal"],
    ["glm", 429, "HTTP 429：1113：您的账户已欠费，请充值后重试。", "fatal"],
    ["siliconflow", 403, "HTTP 403：30011：The selected model requires paid balance. Your paid balance is insufficient. Please top up and try again.", "fatal"],
    ["siliconflow", 429, "HTTP 429：Request was rejected due to rate limiting. Details: TPM limit reached.", "retryable"],
    ["ollama", 404, 'HTTP 404：not_found_error：model "qwen2.5" not found, try pulling it first', "fatal"],
    [
      "vllm",
      400,
      "HTTP 400：BadRequestError：This model's maximum context length is 32768 tokens. However, you requested 39197 tokens in the messages, Please reduce the length of the messages.",
      "overflow",
    ],
  ];

  it("表里列全了每一家的每一份错误正文", () => {
    const listed = expected.map(([profile, status]) => `${profile} ${status}`).sort();
    const all = PROFILE_NAMES.flatMap((name) => Object.keys(PROFILES[name].errors).map((status) => `${name} ${status}`)).sort();
    expect(listed).toEqual(all);
  });

  it.each(expected)("%s %i", async (profile, status, line, verdict) => {
    const { shown, context } = await converse(profile, "我叫小明", () => ({ httpError: status }));
    expect(shown).toBe(`[第 1 轮]\n[错误] ${line}\n[第 1 轮结束]\n`);
    const message = context.messages.at(-1) as AssistantMessage;
    expect(message).toMatchObject({ role: "assistant", stopReason: "error", errorMessage: line });
    expect(classifyAssistantError(message)).toBe(verdict);
  });
});

/** 默认配置的整条重试链（HTTP 层 2 次 × 回合层 3 次）跑一句话：服务器一共收到几个请求、回合层发了哪些事件。 */
async function throughRetries(script: Parameters<typeof startProviderServer>[0]) {
  server = await startProviderServer(script);
  const streamFn = createProviderStream({ api: "openai", baseUrl: server.openaiBaseUrl, apiKey: KEY, model: "m" });
  const context: Context = { messages: [{ role: "user", content: "我叫小明" }] };
  const events: HarnessEvent[] = [];
  for await (const event of runWithRetry({ streamFn, context, tools: createBuiltinTools(), toolContext: { cwd: process.cwd() }, baseDelayMs: 1 })) events.push(event);
  return { requests: server.requests.length, retries: events.filter((e) => e.type.startsWith("auto_retry")), last: context.messages.at(-1) };
}

describe("欠费、余额不足：哪怕是 HTTP 429，两层都不重试，服务器只被问一次", () => {
  it.each([
    ["智谱 1113", { error: { code: "1113", message: "您的账户已欠费，请充值后重试。" } }],
    // modelscope/modelscope#1691 的原文
    ["魔搭 1008", { error: { http_code: "429", message: "insufficient balance (1008)", type: "insufficient_balance_error" }, request_id: "xxxx" }],
  ])("%s", async (_name, body) => {
    const { requests, retries, last } = await throughRetries([{ httpError: 429, body }]);
    expect(requests).toBe(1);
    expect(retries).toEqual([]);
    expect(last).toMatchObject({ stopReason: "error" });
  });
});

describe("DeepSeek 的 finish_reason insufficient_system_resource：服务端资源不够、回复被打断，像 503 一样重试", () => {
  it("第一次被打断，回合层重试一次就答出来", async () => {
    const { requests, retries, last } = await throughRetries([{ text: "你好，小", stopReason: "insufficient_system_resource" }, { text: "你好，小明！" }]);
    expect(requests).toBe(2);
    expect(retries).toEqual([
      { type: "auto_retry_start", attempt: 1, maxAttempts: 3, delayMs: 1, errorMessage: "模型异常结束：finish_reason=insufficient_system_resource" },
      { type: "auto_retry_end", success: true, attempt: 1 },
    ]);
    expect(last).toMatchObject({ stopReason: "stop", content: [{ type: "text", text: "你好，小明！" }] });
  });
});
