// 分类器对照表：实验 step09 的 classify.ts 与 pi-ai 1.6.0 的 isContextOverflow / isRetryableAssistantError
// 对同一批消息各判一次（test/classifier-comparison.test.ts）。这里只放消息本身，不放「应该判成什么」：
// 对照测试比的是两边是否一致，不一致的每一条都要在测试文件的 EXPECTED_DIFFERENCES 里写明原因。
//
// 文案来源（每条的 source 字段写具体出处）：
//   - Pi 源码注释：`.pi-src/@earendil-works/pi-ai@1.6.0/src/utils/overflow.ts` 第 9-37 行按 Provider 列出的报错原文，
//     `src/utils/retry.ts` 各模式上方注释里引用的报文；npm 包不带 Pi 的测试文件，所以没有「Pi 测试」这一来源。
//   - 实验的格式：step08 的 `src/providers/http-error.ts` 把 HTTP 失败写成「HTTP <状态码>：<类型>：<说明>」，
//     网络失败写成「网络错误：…」，流读到一半断开写成「流在结束前中断：…」；step09 的护栏写「模型调用超时（<ms>ms）」，
//     HTTP 重试层写「服务器要求等待 …，超过上限 …，放弃重试：…」。
//   - 标「示意」的条目：错误码或关键词取自 Pi 源码，外面包的句子是我们按实验格式拼的，不是采集到的真实报文。
//
// 消息的形状是实验自己的 AssistantMessage（step09 的 src/types.ts），这里照抄一份而不是 import：
// 对照测试要在 step09 还没合入时也能通过类型检查。

/** 实验 src/types.ts 里的 StopReason。 */
export type LabStopReason = "stop" | "error" | "aborted" | "toolUse" | "length";

/** 实验 src/types.ts 里的 Usage：input 不含缓存命中的部分。 */
export interface LabUsage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

/** 实验 src/types.ts 里的 AssistantMessage（内容块照抄：文本与工具调用）。 */
export interface LabAssistantMessage {
  role: "assistant";
  content: Array<{ type: "text"; text: string } | { type: "toolCall"; id: string; name: string; arguments: Record<string, unknown> }>;
  stopReason: LabStopReason;
  errorMessage?: string;
  usage?: LabUsage;
}

export type Group =
  | "overflow" // 各家 Provider 的上下文溢出报错
  | "rate-limit" // 限流：文字里可能有 tokens，但绝不是溢出
  | "quota" // 额度、账单、套餐上限：不可重试
  | "transient" // 瞬时故障：过载、5xx、网络、流提前结束、「请重试」
  | "silent" // 不报错的溢出（stop / length 加 usage）以及几种「不是失败」的消息
  | "lab-zh" // 实验自己写下的中文错误（step08 的 Provider 层、step09 的护栏与 HTTP 重试层）
  | "fatal"; // 确定性失败：鉴权、请求格式、内容过滤

export interface Fixture {
  /** 稳定的 id：EXPECTED_DIFFERENCES 用它点名。 */
  id: string;
  group: Group;
  /** 文案出处。 */
  source: string;
  message: LabAssistantMessage;
  /** 传给两边 isContextOverflow 的第二个参数；静默溢出只有给了窗口才能判断。 */
  contextWindow?: number;
  /** 只给 Pi 看的 provider 字段（Pi 的 AssistantMessage 必带 provider；实验的消息没有这个字段）。缺省见测试里的适配函数。 */
  piProvider?: string;
}

const failed = (errorMessage: string): LabAssistantMessage => ({ role: "assistant", content: [], stopReason: "error", errorMessage });

const ended = (stopReason: LabStopReason, usage: Partial<LabUsage>, errorMessage?: string): LabAssistantMessage => ({
  role: "assistant",
  content: stopReason === "stop" || stopReason === "length" ? [{ type: "text", text: "……" }] : [],
  stopReason,
  ...(errorMessage === undefined ? {} : { errorMessage }),
  usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, ...usage },
});

const err = (id: string, group: Group, source: string, text: string, extra: Partial<Fixture> = {}): Fixture => ({
  id,
  group,
  source,
  message: failed(text),
  ...extra,
});

const PI_OVERFLOW = "Pi overflow.ts 注释";
const PI_RETRY = "Pi retry.ts 注释";
const LAB = "实验格式";

export const FIXTURES: readonly Fixture[] = [
  // ── 上下文溢出：各家 Provider 的原文 ─────────────────────────────
  err("ovf-anthropic", "overflow", `${PI_OVERFLOW}（Anthropic）`, "prompt is too long: 213462 tokens > 200000 maximum"),
  err(
    "ovf-anthropic-413",
    "overflow",
    `${PI_OVERFLOW}（Anthropic，请求体字节数超限）`,
    '413 {"error":{"type":"request_too_large","message":"Request exceeds the maximum size"}}',
  ),
  err("ovf-openai", "overflow", `${PI_OVERFLOW}（OpenAI）`, "Your input exceeds the context window of this model"),
  err(
    "ovf-openai-legacy",
    "overflow",
    `OpenAI 老式文案，${LAB}`,
    "HTTP 400：invalid_request_error：This model's maximum context length is 128000 tokens. However, your messages resulted in 130517 tokens. Please reduce the length of the messages.",
  ),
  err(
    "ovf-litellm",
    "overflow",
    `${PI_OVERFLOW}（OpenAI/LiteLLM）`,
    "Requested token count exceeds the model's maximum context length of 131072 tokens",
  ),
  err(
    "ovf-gemini",
    "overflow",
    `${PI_OVERFLOW}（Google Gemini）`,
    "The input token count (1196265) exceeds the maximum number of tokens allowed (1048575)",
  ),
  err(
    "ovf-xai",
    "overflow",
    `${PI_OVERFLOW}（xAI Grok）`,
    "This model's maximum prompt length is 131072 but the request contains 537812 tokens",
  ),
  err("ovf-groq", "overflow", `${PI_OVERFLOW}（Groq）`, "Please reduce the length of the messages or completion"),
  err(
    "ovf-deepseek",
    "overflow",
    `DeepSeek 的 OpenAI 式文案，${LAB}`,
    "HTTP 400：invalid_request_error：This model's maximum context length is 65536 tokens. However, you requested 70312 tokens (70312 in the messages, 0 in the completion). Please reduce the length of the messages or completion.",
  ),
  err(
    "ovf-qwen",
    "overflow",
    `${PI_OVERFLOW}（DashScope/Qwen，HTTP 400 invalid_parameter_error），${LAB}`,
    "HTTP 400：invalid_parameter_error：Range of input length should be [1, 129024]",
  ),
  err(
    "ovf-ollama",
    "overflow",
    `${PI_OVERFLOW}（Ollama），${LAB}`,
    "HTTP 400：prompt too long; exceeded max context length by 1024 tokens",
  ),
  err(
    "ovf-llamacpp",
    "overflow",
    `${PI_OVERFLOW}（llama.cpp server），${LAB}`,
    "HTTP 400：exceed_context_size_error：the request exceeds the available context size, try increasing it",
  ),
  err(
    "ovf-vllm",
    "overflow",
    `vLLM 的 OpenAI 兼容文案，${LAB}`,
    "HTTP 400：BadRequestError：This model's maximum context length is 4096 tokens. However, you requested 5000 tokens (4000 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.",
  ),
  err(
    "ovf-openrouter",
    "overflow",
    `${PI_OVERFLOW}（OpenRouter，X/Y 填了数）`,
    "This endpoint's maximum context length is 128000 tokens. However, you requested about 140000 tokens",
  ),
  err(
    "ovf-bedrock",
    "overflow",
    `${PI_OVERFLOW}（Amazon Bedrock，带 Pi 的 Bedrock 前缀 Validation error:）`,
    "Validation error: Input is too long for requested model.",
  ),
  err(
    "ovf-mistral",
    "overflow",
    `${PI_OVERFLOW}（Mistral；注释里「...」省掉的部分照实验 classify.test.ts 补全），外层是 Pi 的 Mistral API error (<状态码>): 格式`,
    "Mistral API error (400): Prompt contains 40000 tokens and 0 draft tokens, too large for model with 32768 maximum context length",
  ),
  err("ovf-zai", "overflow", `${PI_OVERFLOW}（z.ai）`, '{"code":"1261","message":"Prompt too long"}'),
  err(
    "ovf-copilot-413",
    "overflow",
    `${PI_OVERFLOW}（GitHub Copilot，HTTP 413，Pi 的 <provider> API error (413): 格式）`,
    'github-copilot API error (413): {"message":"failed to parse request","code":""}',
  ),
  err("ovf-lab-413", "overflow", `${LAB}：413 且正文只有状态文字`, "HTTP 413：Request Entity Too Large"),
  err("ovf-cerebras", "overflow", `${PI_OVERFLOW}（Cerebras：400/413 没有正文）`, "400 status code (no body)", {
    piProvider: "cerebras",
  }),

  // ── 限流：文字里有 tokens，但不是溢出 ────────────────────────────
  err(
    "rl-bedrock-throttling",
    "rate-limit",
    "Pi overflow.ts 排除表注释（Bedrock 限流，带 Pi 的 Throttling error: 前缀）",
    "Throttling error: Too many tokens, please wait before trying again.",
  ),
  err(
    "rl-bedrock-throttling-lab",
    "rate-limit",
    `同一句 Bedrock 限流文案（ThrottlingException 是 HTTP 429），${LAB}`,
    "HTTP 429：ThrottlingException：Too many tokens, please wait before trying again.",
  ),
  err(
    "rl-anthropic-tpm",
    "rate-limit",
    `Anthropic 的 429 rate_limit_error，${LAB}`,
    "HTTP 429：rate_limit_error：This request would exceed the rate limit for your organization of 40,000 input tokens per minute.",
  ),
  err(
    "rl-groq-tpm",
    "rate-limit",
    `Groq 的 429（类型 tokens），${LAB}`,
    "HTTP 429：tokens：Rate limit reached for model `llama-3.3-70b-versatile` on tokens per minute (TPM): Limit 12000, Used 11000, Requested 3000. Please try again in 10s.",
  ),
  err(
    "rl-siliconflow-tpm",
    "rate-limit",
    `硅基流动的 TPM 限流，HTTP 429，正文不套 error（AIDotNet/OpenDeepWiki#269），${LAB}`,
    "HTTP 429：Request was rejected due to rate limiting. Details: TPM limit reached.",
  ),
  err(
    "rl-too-many-requests",
    "rate-limit",
    "通用 429 说法（实验 classify.test.ts）",
    "Too Many Requests: token limit exceeded for this minute",
  ),

  // ── 额度、账单、套餐：不可重试 ──────────────────────────────────
  err(
    "q-openai-insufficient-quota",
    "quota",
    `OpenAI 的 429 insufficient_quota，${LAB}`,
    "HTTP 429：insufficient_quota：You exceeded your current quota, please check your plan and billing details.",
  ),
  err(
    "q-gemini-quota",
    "quota",
    `Gemini 的 429（正文无类型字段），${LAB}`,
    "HTTP 429：You exceeded your current quota, please check your plan and billing details.",
  ),
  err(
    "q-anthropic-credit",
    "quota",
    `Anthropic 余额不足，${LAB}`,
    "HTTP 400：invalid_request_error：Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits.",
  ),
  err(
    "q-zhipu-1308",
    "quota",
    `${PI_RETRY}（智谱/Z.ai 错误码 1308，HTTP 429），${LAB}：step08 把 {"error":{"code":"1308","message":…}} 写成「HTTP 429：1308：…」`,
    "HTTP 429：1308：Usage limit reached for 5 hour.",
  ),
  err(
    "q-zhipu-1113",
    "quota",
    `智谱 GLM 欠费，HTTP 429 {"error":{"code":"1113","message":"您的账户已欠费，请充值后重试。"}}（langgenius/dify#5850），${LAB}`,
    "HTTP 429：1113：您的账户已欠费，请充值后重试。",
  ),
  err(
    "q-modelscope-1008",
    "quota",
    `魔搭余额不足，HTTP 429 {"error":{"http_code":"429","message":"insufficient balance (1008)","type":"insufficient_balance_error"}}（modelscope/modelscope#1691），${LAB}`,
    "HTTP 429：insufficient_balance_error：insufficient balance (1008)",
  ),
  err(
    "q-siliconflow-30011",
    "quota",
    `硅基流动余额不足，HTTP 403，正文不套 error（FoundationAgents/OpenManus#438），${LAB}`,
    "HTTP 403：30011：The selected model requires paid balance. Your paid balance is insufficient. Please top up and try again.",
  ),
  err(
    "q-deepseek-402",
    "quota",
    `DeepSeek 余额不足，HTTP 402 {"error":{"message":"Insufficient Balance","type":"unknown_error",…}}（Aider-AI/aider#4851），${LAB}`,
    "HTTP 402：unknown_error：Insufficient Balance",
  ),
  err(
    "q-monthly-limit",
    "quota",
    `示意：${PI_RETRY}（OpenCode Go 的月度上限与 available balance）`,
    "Monthly usage limit reached. Enable usage from your available balance to continue.",
  ),
  err(
    "q-opencode-go",
    "quota",
    `示意：${PI_RETRY}（OpenCode Zen API 以 429 返回的错误类型 GoUsageLimitError），${LAB}`,
    "HTTP 429：GoUsageLimitError：usage limit reached",
  ),
  err(
    "q-chatgpt-sharing",
    "quota",
    `示意：${PI_RETRY}（Sign in with ChatGPT 的错误码 subscription_sharing_usage_limit_exceeded），${LAB}`,
    "HTTP 429：subscription_sharing_usage_limit_exceeded：usage limit reached",
  ),

  // ── 瞬时故障：值得再试 ──────────────────────────────────────────
  err("t-anthropic-529", "transient", `Anthropic 过载，${LAB}`, "HTTP 529：overloaded_error：Overloaded"),
  err(
    "t-anthropic-429",
    "transient",
    `Anthropic 的 429，${LAB}`,
    "HTTP 429：rate_limit_error：Number of request tokens has exceeded your per-minute rate limit",
  ),
  err("t-500", "transient", LAB, "HTTP 500：api_error：Internal server error"),
  err(
    "t-deepseek-insufficient-system-resource",
    "transient",
    `DeepSeek 的 finish_reason insufficient_system_resource（api-docs.deepseek.com 的 create-chat-completion），step08 的写法`,
    "模型异常结束：finish_reason=insufficient_system_resource",
  ),
  err("t-502", "transient", LAB, "HTTP 502：Bad Gateway"),
  err("t-503", "transient", LAB, "HTTP 503：Service Unavailable"),
  err("t-504", "transient", LAB, "HTTP 504：Gateway Timeout"),
  err("t-524", "transient", `Cloudflare 524 的正文，${LAB}`, "HTTP 524：error code: 524"),
  err("t-fetch-failed", "transient", "Node fetch 没拿到响应", "TypeError: fetch failed"),
  err("t-enotfound", "transient", "Node DNS 失败", "getaddrinfo ENOTFOUND api.anthropic.com"),
  err("t-eai-again", "transient", "Node DNS 暂时失败", "getaddrinfo EAI_AGAIN api.openai.com"),
  err("t-socket-hang-up", "transient", "Node 连接被对端关闭", "socket hang up"),
  err("t-connection-refused", "transient", `${PI_RETRY}（Codex raw fetch）`, "Connection refused"),
  err("t-stream-ended", "transient", `${PI_RETRY}（Anthropic SDK）`, "Anthropic stream ended before message_stop"),
  err(
    "t-openai-retry-your-request",
    "transient",
    "OpenAI 流中的 server_error（实验的「流中错误：」格式）",
    "流中错误：server_error：The server had an error while processing your request. Sorry about that! You can retry your request, or contact us through our help center at help.openai.com if the error persists.",
  ),
  err(
    "t-bedrock-try-again",
    "transient",
    "Bedrock 流异常（带 Pi 的 Model stream error: 前缀）",
    "Model stream error: The system encountered an unexpected error during processing. Try your request again.",
  ),
  err("t-openrouter", "transient", `${PI_RETRY}（OpenRouter）`, "Provider returned error"),
  err(
    "t-retry-delay",
    "transient",
    "Pi HTTP 层的「等待过长」失败（R11 第 9 条的实测输出）",
    "Server requested 120s retry delay (max: 60s). 429 simulated",
  ),
  err(
    "t-cut-short",
    "transient",
    `${PI_RETRY}（Magpie 网关转述中断的 Anthropic 流）`,
    "Claude Code's stream from Anthropic was cut short after the reply had begun",
  ),
  err(
    "t-http2-cancel",
    "transient",
    `${PI_RETRY}（Node ERR_HTTP2_STREAM_CANCEL 的文字）`,
    "The pending stream has been canceled",
  ),
  err(
    "t-google-adc",
    "transient",
    `${PI_RETRY}（node-fetch 的系统错误，reason 常为空）`,
    "request to https://oauth2.googleapis.com/token failed, reason: ",
  ),

  // ── 不报错的溢出，以及几种「不是失败」的消息 ────────────────────
  {
    id: "s-stop-over-window",
    group: "silent",
    source: "Pi overflow.ts 判据 2（z.ai 静默收下超长输入）",
    message: ended("stop", { input: 150_000, cacheRead: 60_000, output: 800 }),
    contextWindow: 200_000,
  },
  {
    id: "s-stop-equal-window",
    group: "silent",
    source: "判据 2 的边界：恰好等于窗口不算",
    message: ended("stop", { input: 150_000, cacheRead: 50_000, output: 800 }),
    contextWindow: 200_000,
  },
  {
    id: "s-stop-no-window",
    group: "silent",
    source: "判据 2：不给窗口就无从判断",
    message: ended("stop", { input: 300_000, output: 800 }),
  },
  {
    id: "s-length-99",
    group: "silent",
    source: "Pi overflow.ts 判据 3（小米 MiMo：输入被截到窗口大小，零输出）",
    message: ended("length", { input: 190_000, cacheRead: 8_000, output: 0 }),
    contextWindow: 200_000,
  },
  {
    id: "s-length-under-99",
    group: "silent",
    source: "判据 3 的边界：差 1 个 token 不到 99 %",
    message: ended("length", { input: 197_999, output: 0 }),
    contextWindow: 200_000,
  },
  {
    id: "s-length-with-output",
    group: "silent",
    source: "判据 3：有输出就只是回答太长",
    message: ended("length", { input: 199_000, output: 12 }),
    contextWindow: 200_000,
  },
  {
    id: "s-tooluse-over-window",
    group: "silent",
    source: "toolUse 超窗：不在三种判据之内",
    message: ended("toolUse", { input: 250_000 }),
    contextWindow: 200_000,
  },
  {
    id: "s-no-usage",
    group: "silent",
    source: "实验的 FakeModel 不填 usage",
    message: { role: "assistant", content: [{ type: "text", text: "你好" }], stopReason: "stop" },
    contextWindow: 100,
  },
  {
    id: "s-aborted-500",
    group: "silent",
    source: "取消的消息即使带着 5xx / 溢出文字也不是失败",
    message: ended("aborted", {}, "HTTP 500：prompt is too long: 213462 tokens > 200000 maximum"),
    contextWindow: 200_000,
  },

  // ── 实验自己写下的中文错误 ──────────────────────────────────────
  err("zh-net-refused", "lab-zh", "step08 describeNetworkError", "网络错误：connect ECONNREFUSED 127.0.0.1:9"),
  err(
    "zh-net-connect-timeout",
    "lab-zh",
    "step08 describeNetworkError（undici 的连接超时）",
    "网络错误：Connect Timeout Error (attempted address: api.openai.com:443, timeout: 10000ms)（UND_ERR_CONNECT_TIMEOUT）",
  ),
  err(
    "zh-net-tls",
    "lab-zh",
    "step08 describeNetworkError（TLS 证书链不完整）",
    "网络错误：unable to get local issuer certificate（UNABLE_TO_GET_ISSUER_CERT_LOCALLY）",
  ),
  err(
    "zh-stream-cut-socket",
    "lab-zh",
    "step08 describeStreamCut（undici 读正文时连接被关）",
    "流在结束前中断：terminated：other side closed（UND_ERR_SOCKET）",
  ),
  err("zh-stream-no-finish", "lab-zh", "step08 OpenAI 适配器：流结束了却没有 finish_reason", "流在结束前中断（没有收到 finish_reason）"),
  err("zh-stream-no-stop", "lab-zh", "step08 Anthropic 适配器：流结束了却没有 stop_reason", "流在结束前中断（没有收到 stop_reason）"),
  err("zh-model-timeout", "lab-zh", "step09 护栏 withModelTimeout", "模型调用超时（30000ms）"),
  err("zh-http-429", "lab-zh", "step08 describeHttpError：正文为空时用状态文字", "HTTP 429：Too Many Requests"),
  err(
    "zh-server-wait",
    "lab-zh",
    "step09 HTTP 重试层 retryDelayTooLongMessage",
    "服务器要求等待 120 秒，超过上限 60 秒，放弃重试：HTTP 429：rate_limit_error：Too Many Requests",
  ),
  err(
    "zh-zai-finish-reason",
    "lab-zh",
    "step08 OpenAI 适配器把非标准 finish_reason 写成错误（z.ai）",
    "模型异常结束：finish_reason=model_context_window_exceeded",
  ),

  // ── 确定性失败 ──────────────────────────────────────────────────
  err("f-401", "fatal", `Anthropic 鉴权失败，${LAB}`, "HTTP 401：authentication_error：invalid x-api-key"),
  err(
    "f-400-roles",
    "fatal",
    `Anthropic 请求格式错误，${LAB}`,
    'HTTP 400：invalid_request_error：messages: roles must alternate between "user" and "assistant", but found multiple "user" roles in a row',
  ),
  err("f-404-model", "fatal", `模型不存在，${LAB}`, "HTTP 404：not_found_error：model: claude-nonexistent"),
  err("f-request-id", "fatal", "Pi retry.ts 注释 #11057：请求 id 里的 429 不算状态码", "Invalid request (request id req_4290abc)"),
  err("f-content-filter", "fatal", "step08 OpenAI 适配器：内容过滤", "模型异常结束：finish_reason=content_filter"),
];
