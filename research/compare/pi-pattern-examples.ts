// 对照表的最后一个例句来源：Pi 的注释里没有原文、compare/messages.ts 里也没有一条能命中的模式，在这里补一句。
// 每句都是「示意」：关键词或错误码原样取自 Pi 源码里那条模式与它上方的注释（对照测试打印每行的出处），
// 外面的句子是我们拼的，不是采集到的真实报文。
// 测试会检查：这里的每一句都至少命中 Pi 的一条模式（不命中就是过时了，删掉）。
export const HAND_EXAMPLES: readonly string[] = [
  // 溢出
  "finish_reason: model_context_window_exceeded",
  // 排除：限流（Pi 的 Anthropic 适配器原样转述 SDK 的「429 …」）
  '429 {"type":"error","error":{"type":"rate_limit_error","message":"This request would exceed the rate limit for your organization"}}',
  "Error code: 400 - {'error': {'code': 'context_length_exceeded', 'message': 'too long'}}",
  // 额度：不可重试
  '429 {"type":"error","error":{"type":"GoUsageLimitError","message":"Rolling usage limit reached"}}',
  "402 Your credit balance is too low. Please go to Plans & Billing to upgrade.",
  "429 subscription_sharing_usage_limit_exceeded",
  '429 {"error":{"code":"1308","message":"Usage limit reached for this plan"}}',
  "429 FreeUsageLimitError: free usage limit reached for today",
  "Your gateway key is out of budget",
  "429 Quota exceeded for this project",
  "429 subscription_sharing_workplace_individual_usage_limit_exceeded",
  // 瞬时故障：可重试
  '529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
  "rate_limit_exceeded: please slow down",
  "server error: upstream returned garbage",
  "other side closed",
  "Request timeout after 600000ms",
  "terminated",
  "An error occurred while processing your request. You can retry your request.",
  '{"error":{"code":"server_busy","message":"Servers are currently busy. Please try later."}}',
  "We are currently experiencing high demand. The model is at capacity.",
  "internal_error: unexpected failure",
  "exceeded request buffer limit while retrying upstream",
  "response.failed: unable to forward upstream response",
  "response.failed: upstream_request_failed",
  "response.failed: upstream_stream_read_error",
  "The stream was interrupted, please try again",
  "HTTP/2 stream failed: RST_STREAM",
  "Network error while contacting provider",
  "Connection error.",
  "connection lost while streaming",
  "read: connection reset by peer",
  "The socket connection was closed unexpectedly",
  "Request timed out.",
  "WebSocket closed with code 1006",
  "websocket error: unexpected EOF",
  "OpenAI stream ended before a terminal response event",
  "Http2 request did not get a response",
  "An error occurred while processing your request. Please retry your request.",
  "ResourceExhausted: too many concurrent requests",
  "subscription_sharing_usage_unavailable",
  "subscription_sharing_user_unavailable",
];
