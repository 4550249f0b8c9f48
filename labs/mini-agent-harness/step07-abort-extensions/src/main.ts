/**
 * 交互式命令行入口：npm start。
 *
 * 用法：npm start -- [--continue | --session <文件>] [--extension <文件>]...
 *   --continue           恢复 .sessions/ 里最近的一次会话
 *   --session <文件>     打开指定的会话文件
 *   --extension <文件>   加载一个扩展，可以给多次；路径相对于本步骤目录
 * Ctrl+C：正在回复时只取消这一轮，空闲时退出；Ctrl+D 或 /exit：结束输入并退出。
 */

import fs from "node:fs";
import path from "node:path";
import readline from "node:readline";
import { fileURLToPath } from "node:url";
import { runAgentLoop } from "./agent-loop.js";
import { ExtensionHost, loadExtension, withExtensions } from "./extensions.js";
import { createFakeModel } from "./fake-model.js";
import { saveReplyBeforeExit } from "./guards/process-exit.js";
import { renderEvents } from "./render.js";
import { Session } from "./session.js";
import { createBuiltinTools } from "./tools/index.js";
import type { Context } from "./types.js";
// ── 命令行参数 ─────────────────────────────────────────────────
const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
const extensionFiles: string[] = [];
let sessionChoice: { continue: boolean; file?: string } = { continue: false };
for (let i = 0; i < args.length; i++) {
  const arg = args[i];
  if (arg === "--continue") {
    sessionChoice = { ...sessionChoice, continue: true };
  } else if (arg === "--session") {
    sessionChoice = { ...sessionChoice, file: valueOf(arg, args[++i]) };
  } else if (arg === "--extension") {
    // 可以给多次：每个 --extension 后面跟一个扩展文件。
    extensionFiles.push(valueOf(arg, args[++i]));
  } else {
    usageError(`不认识的参数：${arg}`);
  }
}
// ── 工具与扩展 ─────────────────────────────────────────────────
const tools = createBuiltinTools();
const host = new ExtensionHost(tools);
for (const file of extensionFiles) {
  try {
    await loadExtension(path.resolve(projectRoot, file), host);
  } catch (error) {
    // 扩展加载失败不该让整个程序起不来，报告之后继续。
    console.error(`加载扩展失败 ${file}：${describeLoadError(file, error)}`);
  }
}

// ── 会话：新建、恢复最近的一次，或打开指定的文件 ──────────────────
const sessionsDir = path.join(projectRoot, ".sessions");
const warnings: string[] = [];
let session: Session;
try {
  const latest = sessionChoice.continue ? Session.latestFile(sessionsDir) : undefined;
  const file = sessionChoice.file ? path.resolve(projectRoot, sessionChoice.file) : latest;
  if (sessionChoice.continue && !file) console.log("（.sessions/ 里还没有会话，新建一个。）");
  if (file && !fs.existsSync(file)) throw new Error(`找不到会话文件：${sessionChoice.file}（相对路径按步骤目录 ${path.basename(projectRoot)}/ 解析，找的是 ${file}）`);
  session = file ? Session.open(file, warnings) : Session.create(path.join(sessionsDir, newSessionName()));
} catch (error) {
  // 会话文件坏了：说清楚哪个文件、哪一行，然后退出，而不是带着半份历史继续。
  console.error(`无法打开会话：${describeError(error)}`);
  process.exit(1);
}
for (const warning of warnings) console.error(`[警告] ${warning}`);
const context: Context = { messages: session.messages() };
// 离线的假模型，每 40 毫秒吐一个 token；换成真实模型见 step08。
const streamFn = createFakeModel({ delayMs: 40 });

console.log("Mini Agent Harness · step07 abort-extensions");
console.log(`可用工具：${visible(tools.names().join("、"))}`);
if (host.loaded.length > 0) console.log(`已加载扩展：${visible(host.loaded.join("、"))}`);
const sessionName = path.relative(projectRoot, session.file).split(path.sep).join("/");
const restored = context.messages.length;
console.log(restored > 0 ? `已恢复会话 ${sessionName}：${restored} 条消息` : `新会话：${sessionName}`);
console.log("Ctrl+C 取消当前回复（空闲时退出）；Ctrl+D 或 /exit 退出。\n");

// readline 的异步迭代器会缓存读到的行：管道一次喂进多行也不会丢。
const rl = readline.createInterface({ input: process.stdin, output: process.stdout, prompt: "你> " });
const lines = rl[Symbol.asyncIterator]();
// 输入可能先于对话结束（Ctrl+D、管道读完）：readline 随即关闭，之后不能再调用 rl.prompt()。
let inputEnded = false;
rl.on("close", () => (inputEnded = true));

/** 显示提示符并读一行。 */
async function ask(): Promise<string | undefined> {
  if (inputEnded) process.stdout.write(rl.getPrompt()); else rl.prompt();
  const next = await lines.next();
  return next.done ? undefined : next.value; // Ctrl+D：输入结束，返回 undefined
}
// ── Ctrl+C：正在回复时取消这一轮，空闲时退出 ────────────────────
let active: AbortController | undefined;
function handleInterrupt(): void {
  if (active) {
    active.abort();
    return;
  }
  console.log("\n再见。");
  rl.close();
  process.exit(0);
}
// readline 会拦截终端的 Ctrl+C 并在自己身上触发 SIGINT，所以两个都要监听。
rl.on("SIGINT", handleInterrupt);
process.on("SIGINT", handleInterrupt);
saveReplyBeforeExit(rl, () => active?.abort()); // SIGTERM、SIGHUP、输出断了：和 Ctrl+C 一样先存下半截回复
// ── 主循环：读一句，跑一次 Agent 循环，再读下一句 ─────────────────
while (true) {
  const input = await ask();
  // undefined 表示 Ctrl+D：跳出循环，正常退出。
  if (input === undefined) break;
  // 管道输入不会回显，补打一遍，输出才读得懂。
  if (!process.stdin.isTTY) console.log(input);
  const text = input.trim();
  if (text === "") continue;
  if (text === "/exit") break;

  // 用户这句话由主循环放进上下文并落盘；之后的助手消息与工具结果
  // 由 Agent 循环产出，经过 session.record 时逐条落盘。
  const userMessage = { role: "user" as const, content: text };
  context.messages.push(userMessage);
  session.append(userMessage);

  // 每一轮一个新的 AbortController：取消是「这一轮」的事，不是整个程序的事。
  active = new AbortController();
  const events = runAgentLoop({
    streamFn,
    context,
    tools,
    toolContext: { cwd: projectRoot },
    signal: active.signal,
  });
  await renderEvents(withExtensions(session.record(events), host));
  active = undefined;
  console.log();
}
// 走到这里是 Ctrl+D 或 /exit：每条消息产生时就已经落盘，不需要额外保存。
console.log("\n再见。");
rl.close();
// 扩展可能留下了还在跑的定时器（setInterval、永远不结束的工厂）：学习者离开了，进程就该结束。
// 等标准输出写完再退出：管道在有的系统上是异步写的，直接 exit 可能丢掉最后几行。
process.stdout.write("", () => process.exit());

// ── 辅助函数 ───────────────────────────────────────────────────

/** 取参数后面跟着的值；缺了就报用法错误。 */
function valueOf(flag: string, value: string | undefined): string {
  // 空串也算缺值：--session "" 会悄悄新建会话，--extension "" 会去 import 项目目录
  if (!value || value.startsWith("--")) usageError(`${flag} 后面需要一个文件路径`);
  return value;
}

/** 参数不对：说明原因和用法，以退出码 2 结束（命令行工具的惯例）。 */
function usageError(reason: string): never {
  console.error(`${reason}\n用法：npm start -- [--continue | --session <文件>] [--extension <文件>]...`);
  process.exit(2);
}

/** 新会话的文件名：按时间命名，按名字排序就是按时间排序。 */
function newSessionName(): string {
  // 带上进程号：两个进程在同一毫秒启动也不会写进同一个文件。
  return `${new Date().toISOString().replace(/[:.]/g, "-")}-${process.pid}.jsonl`;
}

/** 加载失败的原因：最常见的「文件不存在」说成人话，其余原样转述。 */
function describeLoadError(file: string, error: unknown): string {
  // 说出解析后的绝对路径：学习者一眼就能看出路径是从哪个目录算起的
  const absolute = path.resolve(projectRoot, file);
  if (!fs.existsSync(absolute)) return visible(`找不到 ${absolute}（--extension 的路径相对于步骤目录 ${path.basename(projectRoot)}/，不是仓库根目录）`);
  return visible(describeError(error));
}

// 放在末尾而不是顶部：上面的行是第 8.5 章逐行引用的，顶部多一行它们就都挪了位置（import 会被提升，效果相同）
import { describeError, visible } from "./guards/shown.js";
