/**
 * 失败分诊（classify.ts）用的四张正则表：溢出、不是溢出的限流、不可重试、瞬时故障。
 * Pi 1.6.0 的每一条模式这里都有；不同之处只有三处：表一、表二还认我们自己的「HTTP 413：」「HTTP 429：」格式，
 * 表三、表四多几条（国内服务的额度与资源说法、我们自己的中文错误），以及 Pi 按 provider 字段认的 Cerebras 无正文 400/413
 * （我们的消息没有 provider 字段）。npm test --prefix research 从 Pi 的源码推出对照表，逐条比较。
 */

// ── 表一：上下文溢出 ──────────────────────────────────────────────
// 每一行后面的注释是哪家 Provider 会这样说（原文示例见 test/classify.test.ts）。

export const OVERFLOW_PATTERNS: readonly RegExp[] = [
  /prompt (?:is )?too long/i, // Anthropic「prompt is too long: 213462 tokens > 200000 maximum」；z.ai
  /prompt exceeds max length/i, // z.ai 国内入口
  /request_too_large/i, // Anthropic：请求体字节数超限（HTTP 413）
  /input is too long for requested model/i, // Amazon Bedrock
  /exceeds the context window/i, // OpenAI
  /exceeds (?:the )?(?:model'?s )?maximum context length(?: of [\d,]+ tokens?|\s*\([\d,]+\))/i, // OpenAI 兼容代理（LiteLLM 等）
  /context window exceeded/i, // LiteLLM 的预检查
  /input token count.*exceeds the maximum/i, // Google Gemini
  /maximum prompt length is \d+/i, // xAI Grok
  /reduce the length of the messages/i, // Groq；也出现在 OpenAI/DeepSeek/vLLM 的老式文案末尾
  /maximum context length is \d+ tokens/i, // OpenRouter、DeepSeek、vLLM、OpenAI 老式文案
  /exceeds (?:the )?maximum allowed input length of [\d,]+ tokens?/i, // OpenRouter/Poolside
  /input \(\d+ tokens\) is longer than the model'?s context length \(\d+ tokens\)/i, // Together AI
  /exceeds the limit of \d+/i, // GitHub Copilot
  /exceeds the available context size/i, // llama.cpp server
  /greater than the context length/i, // LM Studio
  /context window exceeds limit/i, // MiniMax
  /exceeded model token limit/i, // Kimi For Coding
  /too large for model with \d+ maximum context length/i, // Mistral
  /prompt has [\d,]+ tokens?, but the configured context size is [\d,]+ tokens?/i, // DS4
  /model_context_window_exceeded/i, // z.ai 把非标准的 finish_reason 写成了错误
  /prompt too long; exceeded (?:max )?context length/i, // Ollama
  /range of input length should be/i, // 通义千问 / DashScope
  /context[_ ]length[_ ]exceeded/i, // 通用兜底（OpenAI 的错误码 context_length_exceeded）
  /too many tokens/i, // 通用兜底
  /token limit exceeded/i, // 通用兜底
  /^HTTP 413：/, // 我们 Provider 层的格式：HTTP 413 就是请求太大，不管正文说什么
  /^(?:[\w -]+ API error \(413\):|413(?:\s|:|$))/i, // Pi 的格式（SDK 原文「413 …」与它的 formatProviderError）：同上
];

/**
 * 表二：明明不是溢出、却可能撞上表一的文案（限流、服务暂不可用）。
 * 例如 Bedrock 的限流：「Throttling error: Too many tokens, please wait before trying again.」
 */
export const NON_OVERFLOW_PATTERNS: readonly RegExp[] = [
  /^(Throttling error|Service unavailable):/i, // Bedrock 的限流与服务不可用
  /rate limit/i, // 各家的限流
  /too many requests/i, // HTTP 429 的标准说法
  /^HTTP 429：/, // 我们的格式：429 是限流，从来不是溢出
];

// ── 表三：不可重试（额度、账单、套餐上限）─────────────────────────

export const NON_RETRYABLE_PATTERNS: readonly RegExp[] = [
  /GoUsageLimitError|FreeUsageLimitError/i, // OpenCode Go / 免费档的套餐上限（以 429 返回）
  /subscription_sharing_(?:workplace_individual_)?usage_limit_exceeded/i, // 「用 ChatGPT 登录」的共享额度、工作区上限
  /insufficient_quota/i, // OpenAI：额度用完（也是 HTTP 429，但等多久都没用）
  /quota exceeded/i,
  /out of budget/i,
  /billing/i,
  /Monthly usage limit reached/i, // 订阅套餐的月度上限
  /available balance/i, // 要求用户动用账户余额
  /"code"\s*:\s*"?1308(?![0-9])/i, // 智谱 GLM 1308：套餐用量到顶，几小时后才恢复
  // 我们自己格式里的智谱错误码（「HTTP 429：1113：…」）：1113 欠费（langgenius/dify#5850）、1308 同上一行，都以 429 回
  /：(?:1113|1308)：/,
  // 余额不足的各家说法：魔搭 insufficient balance (1008) / insufficient_balance_error（modelscope/modelscope#1691），
  // DeepSeek 402「Insufficient Balance」，Kimi「suspended due to insufficient balance」（MoonshotAI/kimi-code#1857），
  // 硅基流动 30011「paid balance is insufficient」（FoundationAgents/OpenManus#438）
  /insufficient[_ ]balance|balance is insufficient/i,
  /欠费|余额不足|账户余额/, // 国内服务的中文说法（智谱 1113「您的账户已欠费」，以及「余额不足」「账户余额」）
  // TLS 证书有问题（过期、自签、证书链不全）：网络是通的，再连一百次也是同一张证书。
  /certificate|CERT_HAS_EXPIRED|SELF_SIGNED_CERT|UNABLE_TO_(?:VERIFY_LEAF|GET_ISSUER)/i,
  // HTTP 层已经判定：服务器要求的等待超过了上限。Pi 在这里让回合层 2 秒后接着试；
  // 我们不：服务器说了要等 120 秒，2 秒后再问只会再被拒一次，还多耗一次配额。
  /服务器要求等待 .*超过上限/,
  // 200 却不是事件流（强制门户、写错的地址）：同一个地址再问一次还是它。Pi 没有这一步检查，也就没有这条
  /不是事件流/,
  // 服务器发来的数据块不合协议（data: null、字段类型不对、不是 JSON）：它说的不是这种话，再问一次也一样。
  // 行首锚定：后面接着的数据原文里碰巧有 500、timeout 也不算数
  /^(?:协议错误|无法解析的流数据)：/,
  // 我们的防线认出来的确定性失败：TLS（证书、http 与 https 写反）、回复超过上限、请求造不出来（设置写错、工具太多）、本机的端口没人在听（providers/guards/network.ts）
  /^(?:TLS 错误|回复太长|构造请求失败)：|本机的这个端口上没有服务在听/,
];

// ── 表四：瞬时故障，值得再试 ──────────────────────────────────────

export const RETRYABLE_PATTERNS: readonly RegExp[] = [
  // 服务端负载与 HTTP 状态
  /overloaded/i,
  /server_busy|servers are currently busy/i,
  /currently experiencing high demand|model is at capacity/i,
  /rate.?limit/i,
  /too many requests/i,
  /(?<![a-z0-9])(?:429|500|502|503|504|520|524)(?![a-z0-9])/i, // 状态码不能是更长数字的一部分（如请求 id）
  /service.?(?:is.?)?(?:temporarily.?)?unavailable/i,
  /server.?error|internal.?error/i,
  /provider.?returned.?(?:an.?)?error/i, // OpenRouter 等网关转述上游的失败
  /upstream.?(?:connect|request.?failed)/i,
  /exceeded request buffer limit while retrying upstream|unable to forward upstream|upstream_stream_read_error/i, // 网关转发上游时失败
  /ResourceExhausted/i, // gRPC 的服务（如 NVIDIA NIM）过载时的状态名
  // 网络与代理
  /network.?error|connection.?(?:error|refused|lost|closed)/i,
  /other side closed|connection reset by peer|reset before headers/i,
  /fetch failed/i,
  /getaddrinfo|ENOTFOUND|EAI_AGAIN/i,
  /(?<![a-z0-9_])(?:ECONNRESET|ECONNABORTED|ECONNREFUSED|ETIMEDOUT|EPIPE)(?![a-z0-9_])/i,
  /socket hang up|socket connection was closed/i,
  /request to \S+ failed, reason:/i, // node-fetch 的网络失败（Pi 的 google-vertex 用到；我们只用 Node 自带的 fetch）
  /websocket.?(?:closed|error|connection.?limit.?reached)/i, // WebSocket 传输（Pi 的 Codex）；我们只走 HTTP，照收
  /http\/?2 stream failed|http2 request did not get a response|pending stream has been canceled/i, // HTTP/2 传输（Pi 的 Bedrock）
  /timed? out|timeout/i,
  /terminated/i, // Node 的 fetch 在连接中途断开时只说一句 terminated
  // 流提前结束
  /ended without/i,
  /stream ended before (?:message_stop|a terminal response event)/i,
  /stream disconnected before completion|stream was interrupted/i,
  /cut short after the reply had begun/i, // Magpie 网关转述上游 Anthropic 流被掐断
  // 服务器明说「再试一次」
  /you can retry your request|try your request again|please retry your request/i,
  // DeepSeek 的 finish_reason：推理服务的资源不够，回复被中途打断（api-docs.deepseek.com/api/create-chat-completion），和 503 一样值得再试
  /insufficient_system_resource/,
  /retry delay/i, // Pi 自己的「服务器要求的等待超过上限」（英文）；我们的中文说法在不可重试表里，见上
  /subscription_sharing_(?:usage|user)_unavailable/i, // 「用 ChatGPT 登录」的用量服务暂时不可用
  // 我们自己（Provider 层与 guard.ts 的护栏）写下的中文错误
  /网络错误：/,
  /流在结束前中断/,
  /模型调用超时/,
];
