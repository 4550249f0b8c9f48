// 离线试验 Pi 1.6.0 的错误分诊与重试函数：直接调用已安装的 @earendil-works/pi-ai，
// 不发任何网络请求、不需要 API Key。用法（在仓库根目录）：
//   node research/examples/pi-classifiers.mjs
// 先 `npm ci --prefix research` 装好依赖。输出里没有计时数字，重跑结果相同。
import {
  DEFAULT_MAX_AGENT_RETRY_DELAY_MS,
  isContextOverflow,
  isRetryableAssistantError,
  retryAssistantCall,
  retryDelayMs,
} from "@earendil-works/pi-ai";
// retryProviderRequest 不在包根导出，只能走 package.json exports 里的 ./utils/* 子路径
import { retryProviderRequest } from "@earendil-works/pi-ai/utils/provider-retry";

const CONTEXT_WINDOW = 200_000;

/** 造一条最小的 assistant 消息；只填分类函数会读的字段 */
function msg(stopReason, errorMessage, usage = {}) {
  return {
    role: "assistant",
    content: [],
    api: "anthropic-messages",
    provider: "anthropic",
    model: "demo-model",
    usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, ...usage },
    stopReason,
    ...(errorMessage === undefined ? {} : { errorMessage }),
    timestamp: 0,
  };
}

// 与 coding-agent 的 AgentSession 同一顺序：先问溢出，再问可重试
function triage(m) {
  if (isContextOverflow(m, CONTEXT_WINDOW)) return "溢出 → 压缩后重试一次";
  if (isRetryableAssistantError(m)) return "可重试 → 退避后 continue";
  if (m.stopReason === "error") return "不可重试 → 直接报错";
  return "不是失败";
}

const cases = [
  ["Anthropic 溢出", msg("error", "prompt is too long: 213462 tokens > 200000 maximum")],
  ["HTTP 413", msg("error", "413 Request Entity Too Large")],
  ["限流 429", msg("error", "429 rate limit exceeded, please slow down")],
  ["额度耗尽（也含 429）", msg("error", "429 insufficient_quota: You exceeded your current quota")],
  ["Bedrock 原始限流文案", msg("error", "ThrottlingException: Too many tokens, please wait before trying again.")],
  ["Bedrock 格式化后的限流", msg("error", "Throttling error: Too many tokens, please wait before trying again.")],
  ["流提前结束", msg("error", "Anthropic stream ended before message_stop")],
  ["网络失败", msg("error", "TypeError: fetch failed")],
  ["请求 id 里的 429", msg("error", "Invalid request (request id req_4290abc)")],
  ["服务端要求等太久", msg("error", "Server requested 120s retry delay (max: 60s). 429 Too Many Requests")],
  ["鉴权失败", msg("error", "401 invalid x-api-key")],
  ["静默溢出（stop）", msg("stop", undefined, { input: 150_000, cacheRead: 60_000, output: 800 })],
  ["截断溢出（length, output=0）", msg("length", undefined, { input: 198_500, output: 0 })],
  ["用户取消", msg("aborted", "Request was aborted")],
];

console.log("== 1. 分类（contextWindow = 200000）==");
for (const [label, m] of cases) {
  const overflow = isContextOverflow(m, CONTEXT_WINDOW);
  const retryable = isRetryableAssistantError(m);
  console.log(`${label.padEnd(20)} overflow=${String(overflow).padEnd(5)} retryable=${String(retryable).padEnd(5)} ${triage(m)}`);
}

console.log("\n== 2. 回合层的退避表 retryDelayMs（baseDelayMs = 2000）==");
console.log(`DEFAULT_MAX_AGENT_RETRY_DELAY_MS = ${DEFAULT_MAX_AGENT_RETRY_DELAY_MS}`);
console.log([1, 2, 3, 4, 5, 6].map((n) => `第${n}次 ${retryDelayMs({ baseDelayMs: 2000 }, n)}ms`).join("，"));

console.log("\n== 3. HTTP 请求层 retryProviderRequest（用假错误，不联网）==");
/** 造一个带 status 与 headers 的错误：retryProviderRequest 只认这种形状 */
function httpError(status, headers = {}) {
  const e = new Error(`${status} simulated`);
  e.status = status;
  e.headers = new Headers(headers);
  return e;
}
async function tryProvider(label, errors, options) {
  let calls = 0;
  try {
    const value = await retryProviderRequest(async () => {
      const e = errors[calls++];
      if (e) throw e;
      return "ok";
    }, options);
    console.log(`${label}: 成功 "${value}"，共请求 ${calls} 次`);
  } catch (error) {
    console.log(`${label}: 失败，共请求 ${calls} 次 → ${error.name}: ${error.message}`);
  }
}
await tryProvider("不给 maxRetries（默认 0）", [httpError(503)], {});
await tryProvider("503 两次后成功", [httpError(503, { "retry-after-ms": "5" }), httpError(503, { "retry-after-ms": "5" })], { maxRetries: 3 });
await tryProvider("400 不重试", [httpError(400)], { maxRetries: 3 });
await tryProvider("400 但 x-should-retry: true", [httpError(400, { "x-should-retry": "true", "retry-after-ms": "5" })], { maxRetries: 3 });
await tryProvider("429 但 x-should-retry: false", [httpError(429, { "x-should-retry": "false" })], { maxRetries: 3 });
await tryProvider("retry-after: 120 超过上限", [httpError(429, { "retry-after": "120" })], { maxRetries: 3 });
await tryProvider("上限设 0 即不设限（等 0.01 秒）", [httpError(429, { "retry-after": "0.01" })], { maxRetries: 1, maxRetryDelayMs: 0 });
const plain = new TypeError("fetch failed"); // 没有 status/headers 属性
await tryProvider("裸 TypeError 不算 provider 错误", [plain], { maxRetries: 3 });
{
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 20);
  await tryProvider("退避中途取消", [httpError(503, { "retry-after-ms": "5000" })], { maxRetries: 3, signal: controller.signal });
}

console.log("\n== 4. 单次 assistant 调用层 retryAssistantCall ==");
const policy = { enabled: true, maxRetries: 3, baseDelayMs: 10 };
function script(replies) {
  let i = 0;
  const produce = async () => replies[Math.min(i++, replies.length - 1)];
  return { produce, calls: () => i };
}
const log = [];
const callbacks = {
  onRetryScheduled: (attempt, max, delayMs, err) => log.push(`scheduled ${attempt}/${max} ${delayMs}ms (${err})`),
  onRetryAttemptStart: () => log.push("attempt start"),
  onRetryFinished: (success, attempt, finalError) => log.push(`finished success=${success} attempt=${attempt}${finalError ? ` (${finalError})` : ""}`),
};
{
  const s = script([msg("error", "overloaded_error"), msg("error", "overloaded_error"), msg("stop")]);
  const r = await retryAssistantCall(s.produce, policy, undefined, callbacks);
  console.log(`瞬时错误两次后成功: stopReason=${r.stopReason}，调用 ${s.calls()} 次`);
  for (const line of log.splice(0)) console.log(`  ${line}`);
}
{
  const s = script([msg("error", "billing: account suspended")]);
  const r = await retryAssistantCall(s.produce, policy, undefined, callbacks);
  console.log(`不可重试错误: stopReason=${r.stopReason}，调用 ${s.calls()} 次，回调 ${log.splice(0).length} 个`);
}
{
  const s = script([msg("error", "overloaded_error")]);
  const r = await retryAssistantCall(s.produce, { ...policy, enabled: false }, undefined, callbacks);
  console.log(`策略关闭: stopReason=${r.stopReason}，调用 ${s.calls()} 次`);
  log.splice(0);
}
{
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 20);
  const s = script([msg("error", "overloaded_error")]);
  const r = await retryAssistantCall(s.produce, { ...policy, baseDelayMs: 5000 }, controller.signal, callbacks);
  console.log(`退避中途取消: stopReason=${r.stopReason}，errorMessage=${r.errorMessage}，调用 ${s.calls()} 次`);
  for (const line of log.splice(0)) console.log(`  ${line}`);
}
