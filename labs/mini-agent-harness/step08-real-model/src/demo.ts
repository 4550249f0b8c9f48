/**
 * 非交互演示：npm run demo。它的输出会与 expected-output.txt 逐字比对。
 *
 * 全程走真实的 HTTP：本进程里起一个本地脚本服务器（127.0.0.1，随机端口），
 * 它按 rules.ts 的剧本回答，两种协议都会说，还记下收到的每个请求。
 *
 *   场景 1：OpenAI 协议，一次用到扩展工具 upper 的对话；
 *   场景 2：同一句话换成 Anthropic 协议——上下文里得到的消息一模一样；
 *   场景 3：流到一半取消（服务器发几段后不再出声，连接一直开着）；再在工具执行之前取消一次；
 *   场景 4：服务器回 401：变成一行 [错误]，对话照常继续；
 *   场景 5：下一个请求里发出去了什么：失败与被取消的助手消息被跳过，落单的工具调用被补上结果。
 *
 * 取消的时机按「收到了第几个事件」来定，而不是按定时器：机器再忙，截断的位置也不会变。
 * 输出里没有端口、时间与路径——它们每次都不同，golden 文件里不能有。
 */

import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

import { runAgentLoop } from "./agent-loop.js";
import { ExtensionHost, loadExtension, withExtensions } from "./extensions.js";
import { startLocalProvider, type Fault } from "./local-provider.js";
import { createProviderStream } from "./providers/index.js";
import { NO_RESULT } from "./providers/transform-messages.js";
import { renderEvents } from "./render.js";
import { Session } from "./session.js";
import { createBuiltinTools } from "./tools/index.js";
import type { Context, HarnessEvent, Message, StreamFn } from "./types.js";

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
// 会话文件默认写在本目录的 .sessions/；测试把 DEMO_SESSIONS_DIR 指向各自的临时目录，几份测试同时跑也不会抢同一个文件
const sessionsDir = process.env.DEMO_SESSIONS_DIR ?? path.join(projectRoot, ".sessions");
/** 一把假密钥：演示它不会出现在输出、错误信息与会话文件里。 */
const KEY = "sk-demo-0000-not-a-real-key";

// 本地脚本服务器。faults 里排着接下来几个请求的故障，一个请求用掉一个；排空了就正常回答。
const faults: Fault[] = [];
const server = await startLocalProvider({ chunkDelayMs: 10, fault: () => faults.shift() }).catch((error: Error) => {
  console.error(error.message); // 单独复制出来的步骤目录里没有本地脚本服务器：说一行怎么办，不是一屏堆栈
  process.exit(1);
});
const openai = createProviderStream({ api: "openai", baseUrl: server.openaiBaseUrl, apiKey: KEY, model: "scripted" });
const anthropic = createProviderStream({ api: "anthropic", baseUrl: server.anthropicBaseUrl, apiKey: KEY, model: "scripted" });

// 装配与 main.ts 相同：内置工具 + 扩展宿主 + 会话文件。会话与工具与 step07 逐字节相同（test/unchanged-core.test.ts）。
const tools = createBuiltinTools();
const host = new ExtensionHost(tools);
await loadExtension(path.join(projectRoot, "extensions", "logger.ts"), host);
const session = Session.create(path.join(sessionsDir, "demo.jsonl"));
const context: Context = { messages: [] };

/**
 * 用户说一句话，跑一次完整的 Agent 循环：会话落盘 → 扩展观察 → 渲染显示，和 main.ts 一样。
 * cancelWhen 扮演按 Ctrl+C 的用户：看到某个事件之后取消。
 */
async function say(text: string, streamFn: StreamFn, cancelWhen?: (event: HarnessEvent) => boolean, ctx = context, sess = session): Promise<void> {
  console.log(`你> ${text}`);
  const userMessage = { role: "user" as const, content: text };
  ctx.messages.push(userMessage);
  sess.append(userMessage);
  const controller = new AbortController();
  const events = runAgentLoop({ streamFn, context: ctx, tools, toolContext: { cwd: projectRoot }, signal: controller.signal });
  await renderEvents(userCancels(withExtensions(sess.record(events), host), controller, cancelWhen));
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

/** 服务器从 from 起收到的请求：方法、路径与次数。 */
function describeRequests(from: number): string {
  const paths = server.requests.slice(from).map((request) => `${request.method} ${request.path}`);
  return `服务器收到 ${paths.length} 个请求：${[...new Set(paths)].map((p) => `${p} ×${paths.filter((x) => x === p).length}`).join("，")}`;
}

/** 第 index 个请求发出的 messages。 */
function sentMessages(index: number): Array<Record<string, unknown>> {
  return (server.requests[index]?.body as { messages?: Array<Record<string, unknown>> } | undefined)?.messages ?? [];
}

/** 一条助手消息的文字与 stopReason。 */
function describeAssistant(message: Message | undefined): string {
  if (message?.role !== "assistant") return "（最后一条不是助手消息）";
  const text = message.content.map((part) => (part.type === "text" ? part.text : "")).join("");
  const error = message.errorMessage ? `，${message.errorMessage}` : "";
  return `「${text}」（stopReason：${message.stopReason}${error}）`;
}

console.log("Mini Agent Harness · step08 real-model（demo）");
console.log(`已加载扩展：${host.loaded.join("、")}`);
console.log(`可用工具：${tools.names().join("、")}（upper 来自扩展）`);
console.log("模型服务：本地脚本服务器（127.0.0.1 上的随机端口），按 rules.ts 的剧本回答");

// ── 场景 1 ─────────────────────────────────────────────────────
console.log("\n=== 场景 1：OpenAI 协议（POST /v1/chat/completions）===\n");
await say("把 mini agent harness 转成大写", openai);
const first = server.requests[0];
const tools1 = (first?.body as { tools?: Array<{ function: { name: string } }> }).tools ?? [];
console.log(describeRequests(0));
console.log(`第 1 个请求带了 ${tools1.length} 个工具：${tools1.map((t) => t.function.name).join("、")}；认证头（服务器记录时已抹掉）：${first?.headers.authorization}`);
console.log(`第 2 个请求的最后一条消息：${JSON.stringify(sentMessages(1).at(-1))}`);

// ── 场景 2 ─────────────────────────────────────────────────────
// 同一句话，同一个剧本，只换协议和一份新的上下文。扩展还是同一个实例，计数接着往下数。
console.log("\n=== 场景 2：同一句话换成 Anthropic 协议（POST /v1/messages）===\n");
const anthropicContext: Context = { messages: [] };
const before2 = server.requests.length;
const anthropicSession = Session.create(path.join(sessionsDir, "demo-anthropic.jsonl"));
await say("把 mini agent harness 转成大写", anthropic, undefined, anthropicContext, anthropicSession);
console.log(describeRequests(before2));
console.log(`第 2 个请求的最后一条消息：${JSON.stringify(sentMessages(before2 + 1).at(-1))}`);
const same = JSON.stringify(anthropicContext.messages) === JSON.stringify(context.messages);
console.log(`上下文里的 ${anthropicContext.messages.length} 条消息与场景 1 完全相同：${same ? "是" : "否"}`);

// ── 场景 3 ─────────────────────────────────────────────────────
// 服务器发出 7 个事件（5 段文字）后不再出声，连接一直开着；用户看到第 3 段文字时按下 Ctrl+C。
console.log("\n=== 场景 3：流到一半取消 ===\n");
faults.push({ hangAfterChunks: 7 });
const longRequest = server.requests.length;
let deltas = 0;
await say("说个长的", openai, (event) => event.type === "text_delta" && ++deltas === 3);
// 取消之后，服务器那边要过一会儿才看到连接断开：等它记下来
const disconnect = await server.disconnected(longRequest);
console.log(`被取消时已生成的内容：${describeAssistant(context.messages.at(-1))}`);
console.log(`服务器记录：这个请求的连接${disconnect?.closedByClient ? "被客户端关闭了——取消信号一路传到了 fetch" : "没有被客户端关闭"}`);

// 再取消一次：这次在模型要求调用工具、工具还没执行时（循环的取消点三）。
console.log();
await say("帮我算 17*38", openai, (event) => event.type === "message" && event.message.role === "assistant");
console.log(`calc 执行了吗：${context.messages.at(-1)?.role === "toolResult" ? "执行了" : "没有，上下文里这次调用没有结果"}`);

// ── 场景 4 ─────────────────────────────────────────────────────
// 有的服务会把收到的密钥写进错误信息；它在变成 errorMessage 之前就被抹掉了。
console.log("\n=== 场景 4：HTTP 401 ===\n");
faults.push({
  httpError: 401,
  body: { error: { message: `Incorrect API key provided: ${KEY}.`, type: "invalid_request_error", code: "invalid_api_key" } },
});
await say("我叫小明", openai);
const failed = context.messages.at(-1);
const shown = failed?.role === "assistant" ? (failed.errorMessage ?? "") : "";
console.log(`服务器的错误正文里带着密钥；errorMessage 里${shown.includes(KEY) ? "仍是原样的密钥" : shown.includes("***") ? "它已被抹成 ***" : "没有它"}。`);

// ── 场景 5 ─────────────────────────────────────────────────────
console.log("\n=== 场景 5：下一个请求发出了什么 ===\n");
const nextRequest = server.requests.length;
await say("我叫什么", openai);
const sent = sentMessages(nextRequest);
const known = context.messages.length - 1; // 发请求时还没有最后这条回复
console.log(`这个请求发出了 ${sent.length} 条消息，而当时上下文里有 ${known} 条：`);
for (const message of sent) {
  const calls = (message.tool_calls as Array<{ function: { name: string } }> | undefined)?.map((c) => `调用 ${c.function.name}`) ?? [];
  const parts = [typeof message.content === "string" ? message.content : "", ...calls].filter(Boolean);
  console.log(`  ${String(message.role).padEnd(9)} ${parts.join(" + ")}`);
}
// 对照上下文，数一数哪些没发、哪些是补的。
const skipped = context.messages.slice(0, known).filter((m) => m.role === "assistant" && (m.stopReason === "aborted" || m.stopReason === "error"));
const added = sent.filter((m) => m.role === "tool" && m.content === NO_RESULT);
console.log(`跳过了 ${skipped.length} 条助手消息：${skipped.map(describeAssistant).join("、")}`);
console.log(`补上了 ${added.length} 条工具结果：${added.map((m) => `${String(m.tool_call_id)} → ${String(m.content)}`).join("、")}`);
const saved = Session.open(session.file).messages().length;
const leaked = fs.readFileSync(session.file, "utf8").includes(KEY) || JSON.stringify(server.requests).includes(KEY);
console.log(`会话文件里仍然保存着全部 ${saved} 条消息；会话文件与服务器的请求记录里${leaked ? "出现了" : "都找不到"}密钥。`);

// ── 场景 6 ─────────────────────────────────────────────────────
// 服务器这一次先发一段推理（带签名的 thinking 块），再调用 calc。它记下了签名：
// 下一轮请求里那条助手消息若不以同一个思考块开头，它会像真实的 Anthropic 一样回 400。
console.log("\n=== 场景 6：思考模型（Anthropic extended thinking）===\n");
faults.push({ thinking: "用户要算 12*12。\n心算也行，但工具更稳妥。" }); // 不是故障：借同一个钩子给这一次回复加上推理
const thinkingContext: Context = { messages: [] };
const thinkingSession = Session.create(path.join(sessionsDir, "demo-thinking.jsonl"));
const before6 = server.requests.length;
await say("帮我算 12*12", anthropic, undefined, thinkingContext, thinkingSession);
const replayed = sentMessages(before6 + 1).find((m) => m.role === "assistant")?.content as Array<{ type: string; signature?: string }> | undefined;
const assistantBlocks = Session.open(thinkingSession.file).messages().flatMap((m) => (m.role === "assistant" ? m.content : []));
const kept = assistantBlocks.filter((block) => block.type === "thinking");
console.log(`第 2 个请求里的助手消息：${replayed?.map((b) => (b.signature ? `${b.type}（带签名）` : b.type)).join(" + ") ?? "（没有）"}`);
console.log(`服务器的协议检查：${describeAssistant(thinkingContext.messages.at(-1)).includes("stopReason：stop") ? "通过，第 2 轮正常回答" : "没通过"}`);
console.log(`会话文件里的思考块：${kept.length} 个，签名${kept.every((b) => b.thinkingSignature) ? "都在" : "丢了"}`);

await server.close();
