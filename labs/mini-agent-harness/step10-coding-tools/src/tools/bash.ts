/**
 * bash 工具：在项目目录里运行一条 shell 命令，交回输出与退出码。
 * 名字与参数照 Pi 1.6.0（pi-coding-agent 的 src/core/tools/bash.ts：bash { command, timeout? }，timeout 以秒计、没有默认值）。
 *
 * 一条命令的一生：
 *   1. 起 shell：Linux、macOS 上是 /bin/sh -c，Windows 上是 cmd.exe /d /s /c（名字仍叫 bash，对齐 Pi；
 *      Pi 在 Windows 上要找 Git Bash，找不到就报错）。工作目录是项目目录，标准输入是空的，环境里没有密钥；
 *   2. stdout 与 stderr 交给同一个回调，按到达的先后收进 OutputTail（只留尾巴）；
 *   3. 三种结束：命令自己退出（交回退出码）、自己的 timeout 到了、这一轮被取消（Ctrl+C，或注册表的工具超时）。
 *      后两种结束整棵进程树；命令自己退出时也扫一遍，它丢在后台的进程（sleep 100 &）一起结束。
 *      harness 退出时还在跑的命令，由 process-tree.ts 在退出的那一刻结束。
 * 这就是第四个取消点：这一轮的 signal 交进 execute，工具自己在收到它时停下手里的活。
 */

import { spawn } from "node:child_process";
import os from "node:os";
import { MAX_TIMER_MS } from "../guard.js";
import { describeError } from "../guards/shown.js";
import { shellEnv } from "../guards/shell-env.js";
import { OutputTail } from "./output-tail.js";
import { killTree, ownGroup, trackUntilExit } from "./process-tree.js";
import type { ToolDefinition, ToolOutput } from "./types.js";

/** 这台机器上跑命令的 shell。 */
export const shell =
  process.platform === "win32"
    ? // /s 去掉外面那层引号，命令原样交给 cmd（Node 的 shell: true 也这样拼）；ComSpec 就是 cmd.exe 的位置
      { name: "cmd.exe", file: process.env.ComSpec ?? "cmd.exe", args: (command: string) => ["/d", "/s", "/c", `"${command}"`] }
    : { name: "/bin/sh", file: "/bin/sh", args: (command: string) => ["-c", command] };

/** timeout（秒）合不合理：正的、有限的，换成毫秒不超过定时器的上限。合理时返回毫秒数，不合理时返回一句说明。 */
export function timeoutMs(seconds: unknown): number | string | undefined {
  if (seconds === undefined) return undefined;
  const max = MAX_TIMER_MS / 1000;
  if (typeof seconds !== "number" || !Number.isFinite(seconds) || seconds <= 0 || seconds > max) {
    return `timeout 以秒计，必须是大于 0、不超过 ${max} 的数，收到的是 ${String(seconds)}`;
  }
  return Math.ceil(seconds * 1000);
}

async function runCommand(command: string, seconds: unknown, cwd: string, signal?: AbortSignal): Promise<ToolOutput> {
  const limit = timeoutMs(seconds);
  if (typeof limit === "string") return { content: limit, isError: true };
  if (signal?.aborted) return { content: "命令没有运行：这一轮已经取消", isError: true };

  const child = spawn(shell.file, shell.args(command), {
    cwd,
    detached: ownGroup, // 自成进程组，整组一起结束（process-tree.ts）
    env: shellEnv(),
    stdio: ["ignore", "pipe", "pipe"], // 标准输入是空的：等输入的命令（cat、read）立刻读到结尾，而不是卡住
    windowsHide: true,
    windowsVerbatimArguments: process.platform === "win32",
  });
  const output = new OutputTail();
  child.stdout.on("data", output.push);
  child.stderr.on("data", output.push);

  let ended: "timeout" | "cancelled" | undefined;
  const stop = (why: "timeout" | "cancelled"): void => {
    ended ??= why;
    if (child.pid !== undefined) killTree(child.pid);
  };
  const timer = limit === undefined ? undefined : setTimeout(() => stop("timeout"), limit);
  const onAbort = (): void => stop("cancelled");
  signal?.addEventListener("abort", onAbort, { once: true });
  const untrack = child.pid === undefined ? () => {} : trackUntilExit(child.pid);
  // shell 一退出就扫一遍它的进程组：留在后台的进程占着管道，不结束它们就等不到 close
  if (ownGroup) child.once("exit", () => killTree(child.pid!));

  try {
    const { code, signalName } = await closed(child);
    const text = output.text() || "（没有输出）";
    if (ended === "timeout") return { content: `${text}\n\n[超时：${String(seconds)} 秒到了，已结束整个进程树]`, isError: true };
    if (ended === "cancelled") return { content: `${text}\n\n[已取消：已结束整个进程树]`, isError: true };
    // 被信号结束的 shell 没有退出码：按 shell 的惯例记成 128 + 信号编号（同 Pi）
    const exitCode = code ?? (signalName ? 128 + (os.constants.signals[signalName] ?? 0) : 1);
    return exitCode === 0 ? { content: `${text}\n\n[退出码 0]` } : { content: `${text}\n\n[退出码 ${exitCode}]`, isError: true };
  } catch (error) {
    return { content: `无法启动 ${shell.name}：${describeError(error)}`, isError: true };
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener("abort", onAbort);
    untrack();
  }
}

/** 等到输出的管道都关上（close）；shell 根本起不来时（error）抛出。 */
function closed(child: ReturnType<typeof spawn>): Promise<{ code: number | null; signalName: NodeJS.Signals | null }> {
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code, signalName) => resolve({ code, signalName }));
  });
}

export const bashTool: ToolDefinition = {
  name: "bash",
  description:
    `在项目目录里运行一条 shell 命令（这台机器上用 ${shell.name}），交回 stdout 与 stderr（按到达的先后合在一起）和退出码。` +
    "输出只留最后 2000 行或 50KB。标准输入是空的。timeout 以秒计，不给就不限时（但受 harness 的工具超时约束）",
  parameters: {
    type: "object",
    properties: {
      command: { type: "string", description: "要运行的命令" },
      timeout: { type: "number", description: "最多运行几秒，到点结束整个进程树（可选）" },
    },
    required: ["command"],
    additionalProperties: false,
  },
  execute(args, context) {
    return runCommand(String(args.command), args.timeout, context.cwd, context.signal);
  },
};
