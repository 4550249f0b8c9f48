import { describe, expect, it } from "vitest";
import { classifyAssistantError, isContextOverflow, isRetryableAssistantError } from "../src/retry/classify.js";
import { NON_OVERFLOW_PATTERNS, NON_RETRYABLE_PATTERNS, OVERFLOW_PATTERNS, RETRYABLE_PATTERNS } from "../src/retry/patterns.js";
import type { AssistantMessage, StopReason, Usage } from "../src/types.js";

const failed = (errorMessage: string): AssistantMessage => ({ role: "assistant", content: [], stopReason: "error", errorMessage });
const ended = (stopReason: StopReason, usage: Partial<Usage>): AssistantMessage => ({
  role: "assistant",
  content: [],
  stopReason,
  usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, ...usage },
});

/** 各家 Provider 的真实溢出文案（多数取自 Pi 的 overflow.ts 注释），有的套上我们 step08 的「HTTP 400：类型：」前缀。 */
const OVERFLOW_MESSAGES: Array<[provider: string, text: string]> = [
  ["Anthropic", "prompt is too long: 213462 tokens > 200000 maximum"],
  ["Anthropic（step08 格式）", "HTTP 400：invalid_request_error：prompt is too long: 213462 tokens > 200000 maximum"],
  ["Anthropic 413", 'HTTP 413：request_too_large：Request exceeds the maximum size'],
  ["OpenAI", "Your input exceeds the context window of this model"],
  [
    "OpenAI 老式文案",
    "HTTP 400：invalid_request_error：This model's maximum context length is 128000 tokens. However, your messages resulted in 130517 tokens. Please reduce the length of the messages.",
  ],
  ["OpenAI 错误码", "HTTP 400：context_length_exceeded"],
  ["OpenAI/LiteLLM", "Requested token count exceeds the model's maximum context length of 131072 tokens"],
  ["LiteLLM 预检查", "litellm.ContextWindowExceededError: litellm.BadRequestError: Context Window exceeded for given call."],
  ["OpenAI 兼容", "Input length (265330) exceeds model's maximum context length (262144)."],
  ["Google Gemini", "The input token count (1196265) exceeds the maximum number of tokens allowed (1048575)"],
  ["xAI", "This model's maximum prompt length is 131072 but the request contains 537812 tokens"],
  ["Groq", "Please reduce the length of the messages or completion"],
  [
    "DeepSeek",
    "HTTP 400：invalid_request_error：This model's maximum context length is 65536 tokens. However, you requested 70312 tokens (70312 in the messages, 0 in the completion). Please reduce the length of the messages or completion.",
  ],
  [
    "vLLM",
    "HTTP 400：BadRequestError：This model's maximum context length is 4096 tokens. However, you requested 5000 tokens (4000 in the messages, 1000 in the completion).",
  ],
  ["OpenRouter", "This endpoint's maximum context length is 128000 tokens. However, you requested about 140000 tokens"],
  ["OpenRouter/Poolside", "Input length 140000 exceeds the maximum allowed input length of 128000 tokens."],
  ["Together AI", "The input (140000 tokens) is longer than the model's context length (131072 tokens)."],
  ["llama.cpp", "HTTP 400：exceed_context_size_error：the request exceeds the available context size, try increasing it"],
  ["LM Studio", "tokens to keep from the initial prompt is greater than the context length"],
  ["GitHub Copilot", "prompt token count of 140000 exceeds the limit of 128000"],
  ["MiniMax", "invalid params, context window exceeds limit"],
  ["Kimi For Coding", "Your request exceeded model token limit: 262144 (requested: 300000)"],
  ["DS4", "Prompt has 140000 tokens, but the configured context size is 131072 tokens"],
  ["Mistral", "Prompt contains 40000 tokens and 0 draft tokens, too large for model with 32768 maximum context length"],
  ["z.ai", '{"code":"1261","message":"Prompt too long"}'],
  ["z.ai 国内入口", '{"code":"1261","message":"Prompt exceeds max length"}'],
  ["z.ai finish_reason", "模型异常结束：finish_reason=model_context_window_exceeded"],
  ["通义千问 DashScope", "HTTP 400：invalid_parameter_error：Range of input length should be [1, 129024]"],
  ["Ollama", "HTTP 400：prompt too long; exceeded max context length by 1024 tokens"],
  ["Amazon Bedrock", "ValidationException: Input is too long for requested model."],
  ["通用兜底", "token limit exceeded"],
];

/** 看起来像溢出、其实是限流或服务不可用：不许算作溢出。 */
const NOT_OVERFLOW: string[] = [
  "Throttling error: Too many tokens, please wait before trying again.", // Bedrock：命中 too many tokens，但它是限流
  "Service unavailable: too many tokens in flight",
  "HTTP 429：rate_limit_error：This request would exceed the rate limit for your organization of 40,000 input tokens per minute.",
  "HTTP 429：Too many tokens per minute, please slow down", // 我们的格式：429 从来不是溢出
  "Too Many Requests: token limit exceeded for this minute",
  "HTTP 429：rate_limit_error：Rate limit reached: too many tokens",
];

/** 额度、账单、套餐上限：不可重试（有的同时带着 429）。 */
const FATAL_QUOTA: string[] = [
  "HTTP 429：insufficient_quota：You exceeded your current quota, please check your plan and billing details.",
  "HTTP 429：Quota exceeded for quota metric 'Generate Content API requests per day'",
  "HTTP 402：Your credit balance is too low to access the API. Please go to Plans & Billing to upgrade or purchase credits.",
  "Monthly usage limit reached. Enable usage from your available balance to continue.",
  'HTTP 429：{"code":"1308","message":"已达到套餐用量上限"}',
  "HTTP 403：Key is out of budget",
  // 国内服务的额度与账单（都以我们自己的格式，也就是 step08 把正文变成的那一行）
  "HTTP 429：1113：您的账户已欠费，请充值后重试。", // 智谱 GLM，langgenius/dify#5850
  "HTTP 429：1308：Usage limit reached for 5 hour.", // 智谱 GLM 套餐上限，我们的格式
  "HTTP 429：insufficient_balance_error：insufficient balance (1008)", // 魔搭，modelscope/modelscope#1691
  "HTTP 402：unknown_error：Insufficient Balance", // DeepSeek
  "HTTP 429：exceeded_current_quota_error：Your account org-0 <ak-0> is suspended due to insufficient balance, please recharge your account", // Kimi
  "HTTP 403：30011：The selected model requires paid balance. Your paid balance is insufficient. Please top up and try again.", // 硅基流动
  "HTTP 429：rate_limit_error：[1113][Insufficient balance or no resource package. Please recharge.]", // z.ai 的 Anthropic 入口
  "HTTP 400：余额不足，请充值", // 中文说法
  "HTTP 429：您的账户余额已用完",
  // 与 Pi 不同：服务器要的等待超过上限，HTTP 层已经放弃，回合层也不再 2 秒后去碰钉子
  "服务器要求等待 120 秒，超过上限 60 秒，放弃重试：HTTP 429：rate_limit_error：Too Many Requests",
];

/** 瞬时故障：可以重试。包括我们 step08/09 自己写下的中文错误。 */
const TRANSIENT: string[] = [
  "HTTP 529：overloaded_error：Overloaded",
  "流中错误：overloaded_error：Overloaded",
  "HTTP 429：rate_limit_error：Too Many Requests",
  "HTTP 500：Internal Server Error",
  "HTTP 502：Bad Gateway",
  "HTTP 503：Service Unavailable",
  "HTTP 504：Gateway Timeout",
  "HTTP 524：A timeout occurred",
  "The service is temporarily unavailable",
  "流中错误：server_error：The server had an error while processing your request. Sorry about that! You can retry your request, or contact us through our help center.",
  "ModelStreamErrorException: The system encountered an unexpected error during processing. Try your request again.",
  "Anthropic stream ended before message_stop",
  "stream ended without producing a message",
  "TypeError: fetch failed",
  "getaddrinfo ENOTFOUND api.example.com",
  "getaddrinfo EAI_AGAIN api.example.com",
  "socket hang up",
  "connect ECONNREFUSED 127.0.0.1:8080",
  "read ECONNRESET",
  "Connection refused",
  "Provider returned error",
  "网络错误：connect ECONNREFUSED 127.0.0.1:9（ECONNREFUSED）",
  "网络错误：getaddrinfo ENOTFOUND api.example.com",
  "流在结束前中断：terminated：other side closed（UND_ERR_SOCKET）",
  "流在结束前中断（没有收到 finish_reason）",
  "流在结束前中断（没有收到 stop_reason）",
  "模型调用超时（30000ms）",
  "模型异常结束：finish_reason=insufficient_system_resource", // DeepSeek：推理资源不够，回复被中途打断
  "HTTP 429：Request was rejected due to rate limiting. Details: TPM limit reached.", // 硅基流动的限流（不套 error 信封）
];

/** 确定性的失败：不是溢出、不是额度、也不是瞬时故障。 */
const FATAL_OTHER: string[] = [
  "HTTP 401：authentication_error：invalid x-api-key",
  "HTTP 400：invalid_request_error：messages: roles must alternate",
  "HTTP 404：not_found_error：model: claude-nonexistent",
  "模型异常结束：finish_reason=content_filter",
  "工具 calc 的参数不是合法的 JSON：Unexpected end of JSON input",
  "构造请求失败：Converting circular structure to JSON",
  "request id req_5001234 failed validation", // 5001234 里的 500 不算状态码
];

describe("isContextOverflow：各家 Provider 的真实溢出文案", () => {
  it.each(OVERFLOW_MESSAGES)("%s", (_provider, text) => {
    expect(isContextOverflow(failed(text))).toBe(true);
    expect(classifyAssistantError(failed(text))).toBe("overflow");
  });

  it.each(NOT_OVERFLOW)("限流不是溢出：%s", (text) => {
    expect(isContextOverflow(failed(text))).toBe(false);
    expect(classifyAssistantError(failed(text))).not.toBe("overflow");
  });

  it("溢出文案只在 stopReason 为 error 时才算", () => {
    const text = "prompt is too long: 213462 tokens > 200000 maximum";
    expect(isContextOverflow({ ...failed(text), stopReason: "stop" })).toBe(false);
    expect(isContextOverflow({ ...failed(text), stopReason: "aborted" })).toBe(false);
  });
});

describe("isContextOverflow：不报错的溢出（要给 contextWindow）", () => {
  it.each([
    // 说明, 消息, contextWindow, 期望
    ["stop，输入超窗（z.ai 静默收下）", ended("stop", { input: 1000, cacheRead: 200 }), 1100, true],
    ["stop，输入恰好等于窗口：不算", ended("stop", { input: 1000, cacheRead: 100 }), 1100, false],
    ["stop，但没给窗口：不知道", ended("stop", { input: 10_000 }), undefined, false],
    ["stop，没有 usage（FakeModel）", { role: "assistant", content: [], stopReason: "stop" } as AssistantMessage, 100, false],
    ["length，零输出，占满 99%（小米 MiMo）", ended("length", { input: 990, output: 0 }), 1000, true],
    ["length，零输出，只占 98.9%", ended("length", { input: 989, output: 0 }), 1000, false],
    ["length，有输出：只是回答太长", ended("length", { input: 999, output: 5 }), 1000, false],
    ["toolUse 超窗：不在三种情形之内", ended("toolUse", { input: 5000 }), 1000, false],
  ] as Array<[string, AssistantMessage, number | undefined, boolean]>)("%s", (_name, message, window, expected) => {
    expect(isContextOverflow(message, window)).toBe(expected);
  });
});

describe("isRetryableAssistantError：先排除额度，再认瞬时故障", () => {
  it.each(FATAL_QUOTA)("额度/账单 → 不重试：%s", (text) => {
    expect(isRetryableAssistantError(failed(text))).toBe(false);
    expect(classifyAssistantError(failed(text))).toBe("fatal");
  });

  it.each(TRANSIENT)("瞬时故障 → 重试：%s", (text) => {
    expect(isRetryableAssistantError(failed(text))).toBe(true);
    expect(classifyAssistantError(failed(text))).toBe("retryable");
  });

  it.each(FATAL_OTHER)("确定性失败 → 不重试：%s", (text) => {
    expect(isRetryableAssistantError(failed(text))).toBe(false);
    expect(classifyAssistantError(failed(text))).toBe("fatal");
  });

  it("只看 error：aborted、stop 永远不是「可重试的错误」", () => {
    const aborted: AssistantMessage = { role: "assistant", content: [], stopReason: "aborted", errorMessage: "HTTP 500" };
    expect(isRetryableAssistantError(aborted)).toBe(false);
    expect(classifyAssistantError(aborted)).toBe("aborted");
    expect(classifyAssistantError({ role: "assistant", content: [], stopReason: "stop" })).toBe("ok");
    expect(isRetryableAssistantError({ role: "assistant", content: [], stopReason: "error" })).toBe(false); // 没有说明
  });

  it("溢出文案本身不在可重试表里：分诊先认溢出，再谈重试", () => {
    for (const [, text] of OVERFLOW_MESSAGES) expect(classifyAssistantError(failed(text))).toBe("overflow");
  });
});

describe("四张表都导出了，文档可以直接展示", () => {
  it("每一项都是正则", () => {
    for (const table of [OVERFLOW_PATTERNS, NON_OVERFLOW_PATTERNS, NON_RETRYABLE_PATTERNS, RETRYABLE_PATTERNS]) {
      expect(table.length).toBeGreaterThan(0);
      for (const pattern of table) expect(pattern).toBeInstanceOf(RegExp);
    }
  });
});

describe("TLS 证书错误不重试", () => {
  it.each([
    "网络错误：unable to get local issuer certificate（UNABLE_TO_GET_ISSUER_CERT_LOCALLY）",
    "网络错误：certificate has expired（CERT_HAS_EXPIRED）",
    "网络错误：self-signed certificate in certificate chain（SELF_SIGNED_CERT_IN_CHAIN）",
  ])("%s", (errorMessage) => {
    expect(isRetryableAssistantError({ role: "assistant", content: [], stopReason: "error", errorMessage })).toBe(false);
  });
});

describe("与 Pi 1.6.0 的模式对齐（issue 13：这些以前认不出）", () => {
  it("Pi 格式的 413（SDK 原文与 formatProviderError 的前缀）是溢出；正文里顺带提到 413 的不是", () => {
    expect(isContextOverflow(failed('413 {"error":{"type":"request_too_large"}}'))).toBe(true);
    expect(isContextOverflow(failed("413 Request Entity Too Large"))).toBe(true);
    expect(isContextOverflow(failed('github-copilot API error (413): {"message":"failed to parse request","code":""}'))).toBe(true);
    expect(isContextOverflow(failed("HTTP 400：bad request: field 413 is wrong"))).toBe(false);
  });

  it.each([
    "ResourceExhausted: model overloaded (grpc)",
    "websocket closed unexpectedly (1006)",
    "WebSocket error: read ECONNRESET",
    "Responses websocket connection limit reached",
    "http/2 stream failed",
    "Http2 request did not get a response",
    "The pending stream has been canceled (caused by: ERR_HTTP2_STREAM_CANCEL)",
    "exceeded request buffer limit while retrying upstream",
    "unable to forward upstream response",
    "upstream_stream_read_error",
    "request to https://oauth2.googleapis.com/token failed, reason: ",
    "Claude Code's stream from Anthropic was cut short after the reply had begun",
    "subscription_sharing_usage_unavailable",
  ])("可重试：%s", (text) => {
    expect(isRetryableAssistantError(failed(text))).toBe(true);
  });

  it.each([
    'HTTP 429：GoUsageLimitError：rolling usage limit reached',
    'HTTP 429：FreeUsageLimitError：free tier exhausted',
    "HTTP 429：subscription_sharing_usage_limit_exceeded",
    "HTTP 429：subscription_sharing_workplace_individual_usage_limit_exceeded",
  ])("额度上限，不重试：%s", (text) => {
    expect(isRetryableAssistantError(failed(text))).toBe(false);
  });

  it("200 却不是事件流：不重试，哪怕开头碰巧写着 503", () => {
    expect(isRetryableAssistantError(failed("服务器返回的不是事件流（content-type: text/html），开头是：<h1>503 维护中</h1>。请检查 HARNESS_BASE_URL"))).toBe(false);
  });
});
