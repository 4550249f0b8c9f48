/**
 * 非交互演示：npm run demo。它的输出会与 expected-output.txt 逐字比对。
 *
 * 和 step08 一样全程走真实的 HTTP：本进程里起一个本地脚本服务器，按 rules.ts 的剧本回答，
 * 只是这次让它按顺序出几种故障，看三层重试与两种超时各自怎么接住：
 *
 *   场景 1：429 + retry-after-ms：HTTP 层悄悄重试，屏幕上什么都看不出来；
 *   场景 2：连着几个 500：HTTP 层重试用完，回合层接手，打印重试状态行；
 *   场景 3：慢工具被工具超时掐断，结果交给模型，对话照常往下走；
 *   场景 4：回合层等待重试时按 Ctrl+C：立刻收场，不再发请求；
 *   场景 5：上下文溢出：压缩一次，再跑一次；
 *   场景 6：额度用完（insufficient_quota）：两层都不重试；
 *   场景 7：服务器要求等 120 秒，超过 60 秒的上限：立刻报错，点名要等多久。
 *
 * 所有等待都用配置出来的小数字（几十毫秒），输出里只有配置值与记下的事实
 * （服务器收到几个请求、请求里有哪些消息），没有实测的时间、端口与路径。
 * 「按 Ctrl+C」由看到 auto_retry_start 事件触发，而不是定时器：机器再忙，结果也不变。
 */

import path from "node:path";
import { fileURLToPath } from "node:url";

import { ExtensionHost, loadExtension, withExtensions } from "./extensions.js";
import { withModelTimeout } from "./guard.js";
import { startLocalProvider, type Fault } from "./local-provider.js";
import { createProviderStream } from "./providers/index.js";
import { renderEvents } from "./render.js";
import { DEFAULT_HTTP_MAX_RETRIES, DEFAULT_MAX_RETRY_DELAY_MS } from "./providers/http-retry.js";
import { DEFAULT_BASE_DELAY_MS, DEFAULT_MAX_RETRIES, runWithRetry } from "./retry/turn-retry.js";
import { Session } from "./session.js";
import { createBuiltinTools } from "./tools/index.js";
import type { Context, HarnessEvent } from "./types.js";

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
// 会话文件默认写在本目录的 .sessions/；测试把 DEMO_SESSIONS_DIR 指向各自的临时目录，几份测试同时跑也不会抢同一个文件
const sessionsDir = process.env.DEMO_SESSIONS_DIR ?? path.join(projectRoot, ".sessions");
/** 一把假密钥：不会出现在输出里。 */
const KEY = "sk-demo-0000-not-a-real-key";

// ── 配置：演示用的小数字 ───────────────────────────────────────
/** 回合层第一次重试前等多久（之后翻倍）。默认是 2000，演示里缩成 20。 */
const BASE_DELAY_MS = 20;
const MODEL_TIMEOUT_MS = 10_000;
const TOOL_TIMEOUT_MS = 50;

// 本地脚本服务器。faults 里排着接下来几个请求的故障，一个请求用掉一个；排空了就正常回答。
const faults: Array<Fault | undefined> = [];
const server = await startLocalProvider({ chunkDelayMs: 5, fault: () => faults.shift() }).catch((error: Error) => {
  console.error(error.message); // 单独复制出来的步骤目录里没有本地脚本服务器：说一行怎么办，不是一屏堆栈
  process.exit(1);
});
const streamFn = withModelTimeout(
  createProviderStream({ api: "openai", baseUrl: server.openaiBaseUrl, apiKey: KEY, model: "scripted" }),
  MODEL_TIMEOUT_MS,
);

// 装配与 main.ts 相同：内置工具 + 扩展 + 会话文件，Agent 循环外面包一层 runWithRetry。
const tools = createBuiltinTools();
const host = new ExtensionHost(tools);
await loadExtension(path.join(projectRoot, "extensions", "logger.ts"), host);
await loadExtension(path.join(projectRoot, "extensions", "sleep.ts"), host);
const session = Session.create(path.join(sessionsDir, "demo.jsonl"));
const context: Context = { messages: [] };

/**
 * 用户说一句话，跑一次带重试的 Agent 循环：会话落盘 → 扩展观察 → 渲染显示，和 main.ts 一样。
 * cancelWhen 扮演按 Ctrl+C 的用户：看到某个事件之后取消。
 */
async function say(text: string, options: { cancelWhen?: (event: HarnessEvent) => boolean; baseDelayMs?: number } = {}): Promise<void> {
  console.log(`你> ${text}`);
  const userMessage = { role: "user" as const, content: text };
  context.messages.push(userMessage);
  session.append(userMessage);
  const controller = new AbortController();
  const events = runWithRetry({
    streamFn,
    context,
    tools,
    toolContext: { cwd: projectRoot, signal: controller.signal, timeoutMs: TOOL_TIMEOUT_MS },
    signal: controller.signal,
    baseDelayMs: options.baseDelayMs ?? BASE_DELAY_MS,
  });
  await renderEvents(userCancels(withExtensions(session.record(events), host), controller, options.cancelWhen));
  console.log();
}

/** 事件先交给下游显示，再决定要不要取消：取消点因此总落在同一个事件之后。 */
async function* userCancels(
  events: AsyncIterable<HarnessEvent>,
  controller: AbortController,
  when?: (event: HarnessEvent) => boolean,
): AsyncGenerator<HarnessEvent> {
  for await (const event of events) {
    yield event;
    if (when?.(event)) controller.abort();
  }
}

/** 第 index 个请求（从 0 数）发出的消息，一条一行。 */
function describeSent(index: number): string[] {
  const body = server.requests[index]?.body as { messages?: Array<{ role: string; content: unknown; tool_calls?: unknown[] }> } | undefined;
  return (body?.messages ?? []).map((message) => {
    const text = typeof message.content === "string" ? message.content : "";
    const calls = message.tool_calls?.length ? ` + ${message.tool_calls.length} 个工具调用` : "";
    return `  ${message.role.padEnd(9)} ${text}${calls}`;
  });
}

const savedMessages = (): number => Session.open(session.file).messages().length;

console.log("Mini Agent Harness · step09 retry-timeout（demo）");
console.log(`已加载扩展：${host.loaded.join("、")}`);
console.log(`可用工具：${tools.names().join("、")}（upper、sleep 来自扩展）`);
console.log("模型服务：本地脚本服务器（127.0.0.1 上的随机端口），按 rules.ts 的剧本回答；出什么故障由每个场景安排");
console.log(`HTTP 层（在 Provider 里面，用户看不见）：最多重试 ${DEFAULT_HTTP_MAX_RETRIES} 次；服务器要求的等待上限 ${DEFAULT_MAX_RETRY_DELAY_MS}ms`);
console.log(
  `回合层：最多重试 ${DEFAULT_MAX_RETRIES} 次，第一次等 ${BASE_DELAY_MS}ms、之后翻倍（默认 ${DEFAULT_BASE_DELAY_MS}ms，演示里缩小了）；` +
    `模型超时：${MODEL_TIMEOUT_MS}ms；工具超时：${TOOL_TIMEOUT_MS}ms`,
);

// ── 场景 1 ─────────────────────────────────────────────────────
console.log("\n=== 场景 1：429 + retry-after-ms，HTTP 层悄悄重试 ===\n");
console.log("安排：第 1 个请求回 HTTP 429，响应头 retry-after-ms: 20\n");
faults.push({ httpError: 429, headers: { "retry-after-ms": "20" } });
let from = server.requests.length;
await say("我叫小明");
const sameBody = JSON.stringify(server.requests[from]?.body) === JSON.stringify(server.requests[from + 1]?.body);
console.log(`服务器收到 ${server.requests.length - from} 个请求，内容${sameBody ? "完全相同" : "不同"}；屏幕上没有错误行，也没有重试行。`);

// ── 场景 2 ─────────────────────────────────────────────────────
// 每个 500 都带 retry-after-ms: 10，HTTP 层的等待也就是配置出来的小数字（不带的话是 0.5 s、1 s 再加随机抖动）。
console.log("\n=== 场景 2：连着 3 个 500，HTTP 层放弃，回合层接手 ===\n");
console.log("安排：接下来 3 个请求都回 HTTP 500（retry-after-ms: 10），第 4 个正常\n");
const e500: Fault = { httpError: 500, headers: { "retry-after-ms": "10" } };
faults.push(e500, e500, e500);
from = server.requests.length;
await say("我叫什么");
console.log(`服务器收到 ${server.requests.length - from} 个请求：第一次尝试里 HTTP 层发了 1 + ${DEFAULT_HTTP_MAX_RETRIES} 个，回合层的第 1 次重试又发了 1 个。`);
console.log(`两层叠起来，一次模型调用最坏要发 (1+${DEFAULT_HTTP_MAX_RETRIES})×(1+${DEFAULT_MAX_RETRIES}) = ${(1 + DEFAULT_HTTP_MAX_RETRIES) * (1 + DEFAULT_MAX_RETRIES)} 个请求。`);
console.log("回合层重试发出的那个请求里的消息（失败的那条回复不在里面）：");
for (const line of describeSent(server.requests.length - 1)) console.log(line);
console.log(`运行时上下文里有 ${context.messages.length} 条消息；会话文件里有 ${savedMessages()} 条——失败的那条还留在文件里。`);

// ── 场景 3 ─────────────────────────────────────────────────────
console.log("\n=== 场景 3：慢工具被工具超时掐断 ===\n");
console.log(`安排：模型调用 sleep 工具，要睡 60000ms；工具超时是 ${TOOL_TIMEOUT_MS}ms\n`);
await say("睡一会 60000");
const timedOut = context.messages.find((m) => m.role === "toolResult" && m.toolName === "sleep");
console.log(`工具结果交给了模型：「${timedOut?.role === "toolResult" ? timedOut.content : "（没有）"}」；模型读到它，回答了下一轮。`);

// ── 场景 4 ─────────────────────────────────────────────────────
// x-should-retry: false 让 HTTP 层不重试，失败直接交到回合层；这次用默认的 2000ms 等待。
console.log("\n=== 场景 4：等待重试时按 Ctrl+C ===\n");
console.log(`安排：第 1 个请求回 HTTP 500（x-should-retry: false，HTTP 层不重试）；回合层用默认的 ${DEFAULT_BASE_DELAY_MS}ms；`);
console.log("      用户一看到 [重试] 那一行就按 Ctrl+C\n");
faults.push({ httpError: 500, headers: { "x-should-retry": "false" } });
from = server.requests.length;
await say("说个长的", { baseDelayMs: DEFAULT_BASE_DELAY_MS, cancelWhen: (event) => event.type === "auto_retry_start" });
console.log(`服务器收到 ${server.requests.length - from} 个请求：等待被取消，第 1 次重试没有发出去，回到提示符。`);

// ── 场景 5 ─────────────────────────────────────────────────────
console.log("\n=== 场景 5：上下文溢出 → 压缩 → 再跑一次 ===\n");
console.log("安排：第 1 个请求回 HTTP 400「prompt is too long: 213462 tokens > 200000 maximum」\n");
faults.push({ httpError: 400, message: "prompt is too long: 213462 tokens > 200000 maximum" });
from = server.requests.length;
const before = context.messages.length;
await say("帮我算 17*38");
console.log(`服务器收到 ${server.requests.length - from} 个请求（溢出不走退避等待）。压缩前上下文有 ${before + 1} 条消息，压缩后的第一个请求只发了这些：`);
for (const line of describeSent(from + 1)) console.log(line);
console.log(`会话文件里一条都没少：${savedMessages()} 条消息。`);

// ── 场景 6 ─────────────────────────────────────────────────────
console.log("\n=== 场景 6：额度用完（insufficient_quota）：不重试 ===\n");
console.log("安排：第 1 个请求回 HTTP 429，type 是 insufficient_quota（同样带着 retry-after-ms: 10）\n");
faults.push({
  httpError: 429,
  headers: { "retry-after-ms": "10" },
  body: {
    error: {
      message: "You exceeded your current quota, please check your plan and billing details.",
      type: "insufficient_quota",
      code: "insufficient_quota",
    },
  },
});
from = server.requests.length;
await say("我叫什么");
console.log(`服务器收到 ${server.requests.length - from} 个请求：虽然是 429，但等多久额度也不会回来，两层都不重试。`);

// ── 场景 7 ─────────────────────────────────────────────────────
console.log("\n=== 场景 7：服务器要求等待的时间超过上限 ===\n");
console.log(`安排：第 1 个请求回 HTTP 429，响应头 retry-after: 120（上限是 ${DEFAULT_MAX_RETRY_DELAY_MS}ms）\n`);
faults.push({ httpError: 429, headers: { "retry-after": "120" } });
from = server.requests.length;
await say("我叫什么");
console.log(`服务器收到 ${server.requests.length - from} 个请求：不干等两分钟，立刻报错并说明服务器要等多久。`);

await server.close();
