/**
 * 非交互演示：npm run demo。它的输出会与 expected-output.txt 逐字比对。
 *
 *   场景 1：加载 extensions/logger.ts，跑一次用到扩展工具 upper 的循环；
 *   场景 2：一段每 200 毫秒吐一个 token 的慢速回复，在第 700 毫秒被取消（像用户按下 Ctrl+C）。
 *
 * 场景 2 的时间账：token 在第 200、400、600 毫秒吐出，第 4 个要等到第 800 毫秒，
 * 而 abort() 发生在第 700 毫秒——所以屏幕上恰好留下前三个 token「这是一段很长」。
 * 取消与 token 排在同一张时间表上（fake-model.ts 的 abortOnSchedule），机器再忙，这笔账也不会算错。
 *
 * 交互模式下按 Ctrl+C 走的是完全相同的代码路径，区别只是 abort() 的调用者
 * 从这里的时间表换成了 main.ts 里的 handleInterrupt。
 */

import path from "node:path";
import { fileURLToPath } from "node:url";

import { runAgentLoop } from "./agent-loop.js";
import { ExtensionHost, loadExtension, withExtensions } from "./extensions.js";
import { abortOnSchedule, createFakeModel } from "./fake-model.js";
import { renderEvents } from "./render.js";
import { Session } from "./session.js";
import { createBuiltinTools } from "./tools/index.js";
import type { AssistantMessage, Context, StreamFn } from "./types.js";

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

// 装配与 main.ts 相同：内置工具 + 扩展宿主 + 会话文件。
const tools = createBuiltinTools();
const host = new ExtensionHost(tools);
await loadExtension(path.join(projectRoot, "extensions", "logger.ts"), host);
const session = Session.create(path.join(process.env.DEMO_SESSIONS_DIR ?? path.join(projectRoot, ".sessions"), "demo.jsonl")); // DEMO_SESSIONS_DIR：测试让每次运行写进自己的临时目录
const context: Context = { messages: [] };

/**
 * 用户说一句话，然后跑一次完整的 Agent 循环。
 * 事件流依次经过：会话落盘 → 扩展观察 → 渲染显示，和 main.ts 完全一样。
 */
async function say(text: string, streamFn: StreamFn, signal?: AbortSignal): Promise<void> {
  console.log(`你> ${text}`);
  const userMessage = { role: "user" as const, content: text };
  context.messages.push(userMessage);
  session.append(userMessage);
  const events = runAgentLoop({ streamFn, context, tools, toolContext: { cwd: projectRoot }, signal });
  await renderEvents(withExtensions(session.record(events), host));
}

console.log("Mini Agent Harness · step07 abort-extensions（demo）");
console.log(`已加载扩展：${host.loaded.join("、")}`);
console.log(`可用工具：${tools.names().join("、")}（upper 来自扩展）`);

// ── 场景 1 ─────────────────────────────────────────────────────
// src/ 下没有任何文件知道 upper：它是扩展在加载时通过 pi.registerTool() 放进注册表的。
console.log("\n=== 场景 1：扩展注册的工具 ===\n");
await say("把 mini agent harness 转成大写", createFakeModel({ delayMs: 0 }));
// 输出里值得对照的两行：[工具结果] upper → … 证明工具确实存在；
// 缩进两格的「[扩展] 第 1 次工具调用」来自扩展的 onEvent，而不是渲染层。

// ── 场景 2 ─────────────────────────────────────────────────────
// 「700 毫秒时按下 Ctrl+C 的用户」排在假模型的同一张时间表上（abortOnSchedule）：token 在 200、400、600、800 毫秒，
// 取消在 700 毫秒。谁先谁后只看时间表，不看定时器实际几点醒来——进程被调度得再晚，结果也不变。
console.log("\n=== 场景 2：700ms 后取消一段慢速回复 ===\n");
const controller = new AbortController();
const slowModel = createFakeModel({ delayMs: 200 });
const timedModel = abortOnSchedule(slowModel, { delayMs: 200, abortAtMs: 700, controller });
await say("说个长的", timedModel, controller.signal);
// 取消由时间表里的那一刻触发，没有另起的定时器要清理。

// 被取消的那条助手消息：它进了上下文，也进了会话文件。
const last = context.messages.at(-1);
if (last?.role !== "assistant" || last.stopReason !== "aborted") {
  console.error("场景 2 没有按预期被取消：上下文里最后一条不是 aborted 的助手消息。");
  process.exit(1);
}
const aborted: AssistantMessage = last;
const partial = aborted.content.map((part) => (part.type === "text" ? part.text : "")).join("");
// 重新读一遍会话文件再数，证明半截消息真的落了盘，而不只是留在内存里：
// 场景 1 的 4 条（用户、助手、工具结果、助手）加上场景 2 的 2 条。
const saved = Session.open(session.file).messages().length;

console.log();
console.log(`被取消时已生成的内容：「${partial}」`);
console.log(`这条消息的 stopReason 是：${aborted.stopReason}`);
console.log(`它仍然被保存进了会话文件，当前共 ${saved} 条消息。`);
