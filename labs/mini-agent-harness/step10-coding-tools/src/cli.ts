/**
 * 命令行程序本身：npm start 经 main.ts 调用 runCli，测试在自己的进程里调用它。
 *
 * 用法：npm start -- [--continue | --session <文件>] [--extension <文件>]...
 *                    [--retries <次数>] [--model-timeout <毫秒>] [--tool-timeout <毫秒>]
 *   --continue             恢复 .sessions/ 里最近的一次会话
 *   --session <文件>       打开指定的会话文件
 *   --extension <文件>     加载一个扩展，可以给多次；路径相对于本步骤目录
 *   --retries <次数>       回合层最多自动重试几次（默认 3，等 2 s、4 s、8 s；0 = 不重试；最多 100）
 *   --model-timeout <毫秒> 模型调用最长多久收不到服务器的任何字节（默认 300000；0 = 不限时）
 *   --tool-timeout <毫秒>  每次工具调用的时限（默认 30000；0 = 不限时）
 * Ctrl+C：正在回复（或正在等待重试）时只取消这一轮，空闲时退出；Ctrl+D 或 /exit：结束输入并退出。
 *
 * 模型服务由环境变量决定（详见 README）：
 *   HARNESS_API=openai|anthropic  HARNESS_BASE_URL  HARNESS_API_KEY  HARNESS_MODEL
 * 密钥也可以来自 OPENAI_API_KEY / ANTHROPIC_API_KEY。既没有密钥也没有地址时，
 * 在本进程里起一个本地脚本服务器：照样走真实的 HTTP 与 SSE，只是离线。
 *
 * 进程的东西（参数、环境变量、标准输入输出、信号）都从 io 进来，退出码作为返回值出去：
 * 同一段程序既能是真实的进程，也能在测试里一次次地跑，不必每次起一个新进程。
 */

import type { EventEmitter } from "node:events";
import fs from "node:fs";
import path from "node:path";
import readline from "node:readline";
import { ExtensionHost, loadExtension, withExtensions } from "./extensions.js";
import { DEFAULT_MODEL_TIMEOUT_MS, DEFAULT_TOOL_TIMEOUT_MS, MAX_TIMER_MS, withModelTimeout } from "./guard.js";
import { endInputIfStdinDestroyed } from "./guards/extensions.js";
import { describeError, visible } from "./guards/shown.js";
import { startLocalProvider } from "./local-provider.js";
import { createProviderStream, describeProvider, resolveProviderConfig, type ResolvedProvider } from "./providers/index.js";
import { showHttpRetryWait } from "./render-retry.js";
import { renderEvents } from "./render.js";
import { DEFAULT_MAX_RETRIES, MAX_RETRIES, runWithRetry } from "./retry/turn-retry.js";
import { Session } from "./session.js";
import { terminalUi } from "./terminal-ui.js";
import { NO_UI } from "./tool-call.js";
import { createBuiltinTools } from "./tools/index.js";
import type { ToolRegistry } from "./tools/types.js";
import type { Context } from "./types.js";

export interface CliIo {
  /** 命令行参数，不含 node 与脚本名 */
  argv: readonly string[];
  env: NodeJS.ProcessEnv;
  stdin: NodeJS.ReadableStream & { isTTY?: boolean; destroyed: boolean; readableEnded: boolean };
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  /** Ctrl+C 的 SIGINT 从这里来：npm start 给 process，测试给自己的 EventEmitter */
  signals: EventEmitter;
  /** 步骤目录：.sessions/ 与 --extension 的相对路径都从这里算 */
  projectRoot: string;
  /** 读输入的 readline 建好之后调用一次：npm start 在这里接上「被叫停时先存话」 */
  onInput?: (rl: readline.Interface, cancelReply: () => void) => void;
}

const USAGE = "用法：npm start -- [--continue | --session <文件>] [--extension <文件>]... [--retries <次数>] [--model-timeout <毫秒>] [--tool-timeout <毫秒>]";

/** 跑完整个交互程序，返回退出码：0 正常，1 会话打不开，2 参数或环境变量写错。 */
export async function runCli(io: CliIo): Promise<number> {
  const { projectRoot } = io;
  // ── 命令行参数 ─────────────────────────────────────────────────
  const extensionFiles: string[] = [];
  let sessionChoice: { continue: boolean; file?: string } = { continue: false };
  // 重试与超时：默认值来自各自的模块（guard.ts、retry/turn-retry.ts），文件开头的用法说明里也写着。
  const limits = { maxRetries: DEFAULT_MAX_RETRIES, modelTimeoutMs: DEFAULT_MODEL_TIMEOUT_MS, toolTimeoutMs: DEFAULT_TOOL_TIMEOUT_MS };
  const args = io.argv;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--continue") {
      sessionChoice = { ...sessionChoice, continue: true };
    } else if (arg === "--session" || arg === "--extension") {
      const value = args[++i];
      // 空串也算缺值：--session "" 会悄悄新建会话，--extension "" 会去 import 项目目录
      if (!value || value.startsWith("--")) return usageError(`${arg} 后面需要一个文件路径`);
      // --extension 可以给多次：每个后面跟一个扩展文件。
      if (arg === "--session") sessionChoice = { ...sessionChoice, file: value };
      else extensionFiles.push(value);
    } else if (arg === "--retries" || arg === "--model-timeout" || arg === "--tool-timeout") {
      const value = args[++i];
      const problem = countProblem(arg, value, arg === "--retries" ? MAX_RETRIES : MAX_TIMER_MS);
      if (problem) return usageError(problem);
      if (arg === "--retries") limits.maxRetries = Number(value);
      else if (arg === "--model-timeout") limits.modelTimeoutMs = Number(value);
      else limits.toolTimeoutMs = Number(value);
    } else {
      return usageError(`不认识的参数：${arg}`);
    }
  }
  // 环境变量写错与参数写错一样：说明原因，退出码 2，什么文件都还没创建。
  const provider = resolveProviderConfig(io.env);
  if (!provider.ok) {
    console.error(provider.error);
    return 2;
  }
  // ── 工具与扩展 ─────────────────────────────────────────────────
  const tools = createBuiltinTools();
  const host = new ExtensionHost(tools);
  for (const file of extensionFiles) {
    try {
      await loadExtension(path.resolve(projectRoot, file), host);
    } catch (error) {
      // 扩展加载失败不该让整个程序起不来，报告之后继续。
      console.error(`加载扩展失败 ${file}：${describeLoadError(projectRoot, file, error)}`);
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
    session = file ? Session.open(file, warnings) : Session.create(newSessionFile(sessionsDir));
  } catch (error) {
    // 会话文件坏了：说清楚哪个文件、哪一行，然后退出，而不是带着半份历史继续。
    console.error(`无法打开会话：${describeError(error)}`);
    return 1;
  }
  try {
    return await converse(io, { session, warnings, provider, tools, host, limits });
  } catch (error) {
    // 起不了本地服务器（单独复制出来的步骤目录里没有它）之类：一句话，退出码 1
    console.error(describeError(error));
    return 1;
  } finally {
    session.close(); // 锁文件只属于这一次运行
  }
}

/** 打开会话之后的一切：横幅、读一句答一句，直到 Ctrl+D、/exit 或空闲时的 Ctrl+C。 */
async function converse(io: CliIo, { session, warnings, provider, tools, host, limits }: Opened): Promise<number> {
  const { projectRoot } = io;
  for (const warning of warnings) console.error(`[警告] ${warning}`);
  const context: Context = { messages: session.messages() };
  // 真实模型与本地脚本服务器走同一条路：createProviderStream 造出的 StreamFn。
  // 本地服务器每 40 毫秒发一段，节奏和 step07 的假模型差不多。
  const local = provider.configured ? undefined : await startLocalProvider({ chunkDelayMs: 40 }, io.env);
  const config = local
    ? { ...provider.config, baseUrl: provider.config.api === "anthropic" ? local.anthropicBaseUrl : local.openaiBaseUrl }
    : provider.config;
  // HTTP 层的重试在 Provider 里面（默认最多 2 次）；超过 1 秒的等待显示一行倒计时，否则看起来像卡死了。
  const providerStream = createProviderStream({ ...config, onRetryWait: (wait) => showHttpRetryWait(wait, io.stdout) }, io.env);
  // 时限套在最外面：HTTP 层的重发与等待都算在这一次调用里。
  const streamFn = withModelTimeout(providerStream, limits.modelTimeoutMs);

  console.log("Mini Agent Harness · step10 coding-tools");
  // 只说连的是谁，绝不打印密钥；本地服务器的端口每次都不同，也不打印。
  console.log(local ? "（未配置 API Key：使用本地脚本化的模型服务，离线运行）" : describeProvider(config));
  console.log(`可用工具：${visible(tools.names().join("、"))}`);
  if (host.loaded.length > 0) console.log(`已加载扩展：${visible(host.loaded.join("、"))}`);
  console.log(`重试：最多 ${limits.maxRetries} 次；模型超时：${describeTimeout(limits.modelTimeoutMs)}；工具超时：${describeTimeout(limits.toolTimeoutMs)}`);
  const sessionName = path.relative(projectRoot, session.file).split(path.sep).join("/");
  const restored = context.messages.length;
  console.log(restored > 0 ? `已恢复会话 ${sessionName}：${restored} 条消息` : `新会话：${sessionName}`);
  console.log("Ctrl+C 取消当前回复或重试等待（空闲时退出）；Ctrl+D 或 /exit 退出。\n");

  // readline 的异步迭代器会缓存读到的行：管道一次喂进多行也不会丢。
  const rl = readline.createInterface({ input: io.stdin, output: io.stdout, prompt: "你> " });
  const lines = rl[Symbol.asyncIterator]();
  // 输入可能先于对话结束（Ctrl+D、管道读完）：readline 随即关闭，之后不能再调用 rl.prompt()。
  let inputEnded = false;
  rl.on("close", () => (inputEnded = true));
  endInputIfStdinDestroyed(rl, io.stdin); // 扩展关掉了标准输入：否则提示符永远挂着
  // tool_call 处理函数的界面：标准输入是终端才有人回答；管道、CI 里问不了任何人（permission-gate.ts 就直接阻止）
  const ui = io.stdin.isTTY === true ? terminalUi(rl, (text) => io.stdout.write(text)) : NO_UI;

  /** 显示提示符并读一行。 */
  async function ask(): Promise<string | undefined> {
    if (inputEnded) io.stdout.write(rl.getPrompt()); else rl.prompt();
    const next = await lines.next();
    return next.done ? undefined : next.value; // Ctrl+D：输入结束，返回 undefined
  }
  // ── Ctrl+C：正在回复时取消这一轮，空闲时退出 ────────────────────
  let active: AbortController | undefined;
  function handleInterrupt(): void {
    if (active) active.abort();
    else rl.close(); // 空闲：像 Ctrl+D 一样结束输入，主循环照常道别
  }
  // readline 会拦截终端的 Ctrl+C 并在自己身上触发 SIGINT，所以两个都要监听。
  rl.on("SIGINT", handleInterrupt);
  io.signals.on("SIGINT", handleInterrupt);
  io.onInput?.(rl, () => active?.abort());
  try {
    // ── 主循环：读一句，跑一次 Agent 循环，再读下一句 ─────────────────
    while (true) {
      const input = await ask();
      // undefined 表示 Ctrl+D：跳出循环，正常退出。
      if (input === undefined) break;
      // 管道输入不会回显，补打一遍，输出才读得懂。
      if (!io.stdin.isTTY) console.log(input);
      const text = input.trim();
      if (text === "") continue;
      if (text === "/exit") break;

      // 用户这句话由主循环放进上下文并落盘；之后的助手消息与工具结果
      // 由 Agent 循环产出，经过 session.record 时逐条落盘。
      const userMessage = { role: "user" as const, content: text };
      context.messages.push(userMessage);
      session.append(userMessage);

      // 每一轮一个新的 AbortController：取消是「这一轮」的事，不是整个程序的事。
      // runWithRetry 把 runAgentLoop 包在里面：失败时等一会儿再跑，等待中按 Ctrl+C 立刻收场。
      // 工具拿到同一个信号与时限：Ctrl+C 或超时都会取消正在执行的工具。执行之前先问扩展的 tool_call 处理函数。
      active = new AbortController();
      const events = runWithRetry({
        streamFn,
        context,
        tools,
        toolContext: { cwd: projectRoot, signal: active.signal, timeoutMs: limits.toolTimeoutMs, beforeToolCall: host.toolCalls.gate(ui) },
        signal: active.signal,
        maxRetries: limits.maxRetries,
      });
      await renderEvents(withExtensions(session.record(events), host), (text) => io.stdout.write(text), io.stdout.isTTY === true);
      active = undefined;
      console.log();
    }
    // 走到这里是 Ctrl+D、/exit 或空闲时的 Ctrl+C：每条消息产生时就已经落盘，不需要额外保存。
    console.log("\n再见。");
    return 0;
  } finally {
    io.signals.off("SIGINT", handleInterrupt);
    rl.close();
    // 本地服务器还在监听：不关掉它，进程就不会自己结束。
    await local?.close();
  }
}

/** runCli 打开的东西，交给 converse */
interface Opened {
  session: Session;
  warnings: string[];
  provider: Extract<ResolvedProvider, { ok: true }>;
  tools: ToolRegistry;
  host: ExtensionHost;
  limits: { maxRetries: number; modelTimeoutMs: number; toolTimeoutMs: number };
}

// ── 辅助函数 ───────────────────────────────────────────────────

/** 参数不对：说明原因和用法，退出码 2（命令行工具的惯例）。 */
function usageError(reason: string): number {
  console.error(`${reason}\n${USAGE}`);
  return 2;
}

/** --retries 等后面跟着的值不是不超过 max 的非负整数时，说明哪里不对；没问题返回 undefined。 */
function countProblem(flag: string, value: string | undefined, max: number): string | undefined {
  if (value === undefined || value.startsWith("--")) return `${flag} 后面需要一个非负整数`;
  // 只认十进制数字：Number("") 是 0、Number("1e3") 是 1000、Number("0x10") 是 16，都不该悄悄接受
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value))) return `${flag} 后面需要一个非负整数，收到的是：${value}`;
  if (Number(value) <= max) return undefined;
  // 时限的上限是定时器的上限（见 guard.ts 的 MAX_TIMER_MS）：更大的值会被 Node 悄悄换成 1 毫秒
  return max === MAX_TIMER_MS ? `${flag} 最大是 ${MAX_TIMER_MS}（约 24.8 天，Node 定时器的上限；不限时请用 0），收到的是：${value}` : `${flag} 最大是 ${max}，收到的是：${value}`;
}

/** 横幅里的时限：0 表示不限时。 */
function describeTimeout(ms: number): string {
  return ms > 0 ? `${ms}ms` : "不限时";
}

/** 新会话的文件：按时间命名，按名字排序就是按时间排序。 */
function newSessionFile(dir: string): string {
  // 带上进程号：两个进程在同一毫秒启动也不会写进同一个文件；同一进程里一毫秒跑两次（测试）再加序号
  const stem = path.join(dir, `${new Date().toISOString().replace(/[:.]/g, "-")}-${process.pid}`);
  let file = `${stem}.jsonl`;
  for (let n = 2; fs.existsSync(file); n++) file = `${stem}-${n}.jsonl`;
  return file;
}

/** 加载失败的原因：最常见的「文件不存在」说成人话，其余原样转述。 */
function describeLoadError(projectRoot: string, file: string, error: unknown): string {
  // 说出解析后的绝对路径：学习者一眼就能看出路径是从哪个目录算起的
  const absolute = path.resolve(projectRoot, file);
  if (!fs.existsSync(absolute)) return visible(`找不到 ${absolute}（--extension 的路径相对于步骤目录 ${path.basename(projectRoot)}/，不是仓库根目录）`);
  return visible(describeError(error));
}
