/**
 * npm run provider（在 step08、step09 里）：单独起一个本地脚本服务器，让 npm start 连过来，亲手试各种失败。
 *
 * 用法：npm run provider -- [--port <端口>] [--delay <毫秒>] [--key <密钥>] [--profile <服务>]
 *                          [--fail <状态码> [--retry-after <秒>] [--retry-after-ms <毫秒>] [--should-retry true|false] [--message <文字>]
 *                           | --drop-after <n> | --hang-after <n> | --hang | --redirect <地址> | --not-sse | --thinking <文字> | --keep-alive <n>]
 *                          [--once | --times <n>]
 * 它按步骤的剧本回答（rules.ts，和 step07 的假模型一样），OpenAI 与 Anthropic 两种协议都会说。
 * --profile 让 OpenAI 协议照某一家服务的样子说话（profiles.ts：deepseek、kimi、qwen、glm、siliconflow、ollama、vllm）。
 * --retry-after-ms、--should-retry、--message、--times、--keep-alive 是为 step09 的重试与超时准备的；step08 照样能用。
 * Ctrl+C 停止。
 */

import { isProfileName, PROFILE_NAMES, type ProfileName } from "./profiles.js";
import { startProviderServer, type ProviderServer } from "./provider-server.js";
import { contextFromRequest, scriptedProvider, type Fault } from "./scripted-provider.js";
import type { Answerer, Context } from "./types.js";

export interface ProviderCliOptions {
  /** 步骤的剧本：fake-model.ts 的 decideReply。 */
  answer: Answerer;
  /** 日志里的「触发词」：剧本挑规则时看的东西（rules.ts 的 triggerOf）。 */
  triggerOf: (context: Context) => string;
}

const USAGE = `用法：npm run provider -- [--port <端口>] [--delay <毫秒>] [--key <密钥>] [--profile <服务>]
                         [--fail <状态码> [--retry-after <秒>] [--retry-after-ms <毫秒>] [--should-retry true|false] [--message <文字>]
                          | --drop-after <n> | --hang-after <n> | --hang | --redirect <地址> | --not-sse | --thinking <文字> | --keep-alive <n>]
                         [--once | --times <n>]`;

/** 解析参数、起服务器、打印怎么连过来；之后每个请求与每次提前断开各记一行，直到 Ctrl+C。 */
export async function runProviderCli(args: string[], options: ProviderCliOptions): Promise<void> {
  // ── 命令行参数 ─────────────────────────────────────────────────
  let port = 0;
  let delayMs = 40;
  let apiKey: string | undefined;
  let fault: Fault | undefined;
  /** 前几个请求出错；undefined = 每个请求都出错。--once 就是 --times 1。 */
  let times: number | undefined;
  let retryAfter: string | undefined;
  let retryAfterMs: string | undefined;
  let shouldRetry: string | undefined;
  let message: string | undefined;
  let profile: ProfileName | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--port") port = numberOf(arg, args[++i]);
    else if (arg === "--profile") profile = profileOf(args[++i]);
    else if (arg === "--delay") delayMs = numberOf(arg, args[++i]);
    else if (arg === "--key") apiKey = valueOf(arg, args[++i]);
    else if (arg === "--fail") fault = { httpError: statusOf(args[++i]) };
    else if (arg === "--retry-after") retryAfter = valueOf(arg, args[++i]);
    else if (arg === "--retry-after-ms") retryAfterMs = valueOf(arg, args[++i]);
    else if (arg === "--should-retry") shouldRetry = booleanOf(arg, args[++i]);
    else if (arg === "--message") message = valueOf(arg, args[++i]);
    else if (arg === "--times") times = numberOf(arg, args[++i]);
    else if (arg === "--drop-after") fault = { dropAfterChunks: numberOf(arg, args[++i]) };
    else if (arg === "--hang-after") fault = { hangAfterChunks: numberOf(arg, args[++i]) };
    else if (arg === "--hang") fault = { hang: true };
    else if (arg === "--redirect") fault = { redirect: 307, location: valueOf(arg, args[++i]) };
    else if (arg === "--not-sse") fault = { notStream: "<html><head><title>请先登录</title></head><body>访客 Wi-Fi 登录页</body></html>", contentType: "text/html; charset=utf-8" };
    else if (arg === "--thinking") fault = { thinking: valueOf(arg, args[++i]) };
    else if (arg === "--keep-alive") fault = { keepAlive: numberOf(arg, args[++i]) };
    else if (arg === "--once") times = 1;
    else usageError(`不认识的参数：${arg}`);
  }
  // 这几个参数修饰的是 --fail 回的那个错误响应
  const headers: Record<string, string> = {};
  if (retryAfter !== undefined) headers["retry-after"] = retryAfter;
  if (retryAfterMs !== undefined) headers["retry-after-ms"] = retryAfterMs;
  if (shouldRetry !== undefined) headers["x-should-retry"] = shouldRetry;
  if (Object.keys(headers).length > 0 || message !== undefined) {
    if (!fault || !("httpError" in fault)) usageError("--retry-after、--retry-after-ms、--should-retry、--message 只能和 --fail 一起用");
    if (Object.keys(headers).length > 0) fault.headers = headers;
    // 正文按两种协议各自的错误格式生成，所以只在请求到来时（知道是哪种协议）才拼
    if (message !== undefined) fault.message = message;
  }

  // ── 启动 ───────────────────────────────────────────────────────
  let server: ProviderServer;
  try {
    server = await startProviderServer(
      scriptedProvider({ answer: options.answer, chunkDelayMs: delayMs, fault: (index) => (times !== undefined && index >= times ? undefined : fault) }),
      { port, ...(apiKey !== undefined ? { apiKey } : {}), ...(profile !== undefined ? { profile } : {}) },
    );
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    console.error(code === "EADDRINUSE" ? `端口 ${port} 已被占用，换一个，或者去掉 --port 让系统挑` : `服务器起不来：${String(error)}`);
    process.exit(1);
  }

  const key = apiKey ?? "local";
  console.log(`本地脚本服务器已启动：${server.url}`);
  console.log("它按 rules.ts 的剧本回答，OpenAI 与 Anthropic 两种协议都会说。在本步骤目录的另一个终端里运行：\n");
  console.log(`  HARNESS_API=openai HARNESS_BASE_URL=${server.openaiBaseUrl} HARNESS_API_KEY=${key} npm start`);
  console.log(`  HARNESS_API=anthropic HARNESS_BASE_URL=${server.anthropicBaseUrl} HARNESS_API_KEY=${key} npm start`);
  console.log(`\n  （Windows PowerShell：$env:HARNESS_API="openai"; $env:HARNESS_BASE_URL="${server.openaiBaseUrl}"; $env:HARNESS_API_KEY="${key}"; npm start）`);
  if (profile !== undefined) console.log(`\n说话的样子：${profile}（OpenAI 协议的流与错误正文照这家服务，见 labs/scripted-provider/src/profiles.ts）`);
  console.log(`\n当前故障：${describeFault(fault, times, apiKey, message)}`);
  console.log(`想故意出错，就带上参数重启，例如：
  npm run provider -- --fail 401                     每个请求都回 401
  npm run provider -- --fail 429 --retry-after 5 --once   只有第一个请求回 429，之后正常
  npm run provider -- --fail 500
  npm run provider -- --drop-after 6                 发出 6 个事件后掐断连接
  npm run provider -- --hang-after 6                 发出 6 个事件后不再出声（试试 Ctrl+C）
  npm run provider -- --hang                         只回响应头，一个字也不说
  npm run provider -- --key secret                   密钥不是 secret 的请求一律 401
  npm run provider -- --redirect https://example.com/v1/messages   307 到另一个主机：客户端不该跟过去
  npm run provider -- --not-sse                      回 200，但正文是一张 HTML 登录页（像酒店 Wi-Fi）
  npm run provider -- --thinking "先想一想……"         思考模型：先发推理（OpenAI 协议是 reasoning_content，Anthropic 是带签名的思考块）
  npm run provider -- --profile deepseek             照 DeepSeek 的样子说话（还有 kimi、qwen、glm、siliconflow、ollama、vllm）
  npm run provider -- --profile glm --fail 429       那一家服务的错误正文（智谱：1113 欠费）
试 step09 的重试与溢出：
  npm run provider -- --fail 429 --retry-after-ms 50 --once   HTTP 层悄悄重试，用户看不见
  npm run provider -- --fail 429 --retry-after 120            要等的比上限（60 秒）长：立刻报错
  npm run provider -- --fail 500 --times 3                    HTTP 层重试 2 次仍失败，回合层接手
  npm run provider -- --fail 503 --should-retry false         HTTP 层不重试，回合层等 2 s、4 s、8 s（试试 Ctrl+C）
  npm run provider -- --fail 400 --message "prompt is too long: 213462 tokens > 200000 maximum"   上下文溢出
  npm run provider -- --fail 429 --message "You exceeded your current quota, please check your plan and billing details."   额度用完：不重试
  npm run provider -- --keep-alive 6 --delay 1000             先发 6 行 : keep-alive（每秒一行）再回答：试 --model-timeout 3000
每个请求记一行日志。Ctrl+C 停止。\n`);

  // ── 日志：请求与断开 ───────────────────────────────────────────
  // 服务器只把它们记进数组；这里定时看一眼，有新的就打印。
  let logged = 0;
  let loggedDisconnects = 0;
  const timer = setInterval(() => {
    for (; logged < server.requests.length; logged++) {
      const request = server.requests[logged];
      if (!request) break;
      // 触发词就是剧本挑规则时看的东西：用户原话，或 toolResult:<工具名>
      console.log(`[#${logged + 1}] ${request.method} ${request.path}（触发词：${options.triggerOf(contextFromRequest(request)) || "无"}）`);
    }
    for (; loggedDisconnects < server.disconnects.length; loggedDisconnects++) {
      const d = server.disconnects[loggedDisconnects];
      console.log(`[#${(d?.request ?? 0) + 1}] 连接提前关闭：${d?.closedByClient ? "客户端断开（例如按了 Ctrl+C）" : "按故障设置由服务器掐断"}`);
    }
  }, 100);

  process.on("SIGINT", () => {
    clearInterval(timer);
    void server.close().then(() => {
      console.log("\n本地脚本服务器已停止。");
      process.exit(0);
    });
  });
}

// ── 辅助函数 ───────────────────────────────────────────────────

function describeFault(fault: Fault | undefined, times: number | undefined, apiKey: string | undefined, message: string | undefined): string {
  if (!fault) return apiKey !== undefined ? `无（但要求密钥是 ${apiKey}）` : "无，正常回答";
  const scope = times === undefined ? "每个请求" : times === 1 ? "只对第一个请求" : `只对前 ${times} 个请求`;
  if ("httpError" in fault) {
    const extras = [
      ...Object.entries(fault.headers ?? {}).map(([name, value]) => `${name}: ${value}`),
      ...(message !== undefined ? [`错误说明：${message}`] : []),
    ];
    return `${scope}回 HTTP ${fault.httpError}${extras.length > 0 ? `（${extras.join("；")}）` : ""}`;
  }
  if ("hang" in fault) return `${scope}只回响应头，然后一言不发`;
  if ("redirect" in fault) return `${scope}回 ${fault.redirect}，重定向到 ${fault.location}`;
  if ("notStream" in fault) return `${scope}回 200，但正文是 ${fault.contentType}，不是事件流`;
  if (fault.thinking !== undefined) return `${scope}先发一段推理：${fault.thinking}`;
  if (fault.keepAlive !== undefined) return `${scope}先发 ${fault.keepAlive} 行 : keep-alive 注释，再回答`;
  if (fault.dropAfterChunks !== undefined) return `${scope}发出 ${fault.dropAfterChunks} 个事件后掐断连接`;
  return `${scope}发出 ${fault.hangAfterChunks} 个事件后不再出声`;
}

function valueOf(flag: string, value: string | undefined): string {
  if (value === undefined || value.startsWith("--")) usageError(`${flag} 后面需要一个值`);
  return value;
}

function numberOf(flag: string, value: string | undefined): number {
  const n = Number(valueOf(flag, value));
  if (!Number.isInteger(n) || n < 0) usageError(`${flag} 后面需要一个非负整数，收到的是：${value}`);
  return n;
}

function profileOf(value: string | undefined): ProfileName {
  if (value === undefined || !isProfileName(value)) usageError(`--profile 后面只能是 ${PROFILE_NAMES.join("、")} 之一，收到的是：${value}`);
  return value;
}

function booleanOf(flag: string, value: string | undefined): string {
  if (value !== "true" && value !== "false") usageError(`${flag} 后面只能是 true 或 false，收到的是：${value}`);
  return value;
}

/** 只接受错误状态码：200 不算故障，0 之类的数字连响应头都写不出来。 */
function statusOf(value: string | undefined): number {
  const status = numberOf("--fail", value);
  if (status < 400 || status > 599) usageError(`--fail 后面需要一个 400–599 的状态码，收到的是：${value}`);
  return status;
}

function usageError(reason: string): never {
  console.error(`${reason}\n${USAGE}`);
  process.exit(2);
}
