/**
 * 测试辅助：在一个临时目录里运行真实的 CLI 进程。
 *
 * 为什么要复制到临时目录：CLI 把会话写进「项目根目录/.sessions」，
 * 每个测试用自己的一份副本，互不干扰，也不会在仓库里留下文件。
 */

import { spawn } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

/** 本步骤的根目录。 */
export const stepRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

/** tsx 的命令行入口：用当前 node 直接运行它，不经过 shell，Windows 上也一样。 */
export const tsxCli = createRequire(import.meta.url).resolve("tsx/cli");

/**
 * tsx 的加载器（包的主入口）。测试里用 node --import 挂上它直接运行 .ts：
 * 比经过 tsx 命令行少起一个进程，测试快得多；行为上没有区别。
 */
export const tsxLoader = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;

/**
 * runCli / runScript 用的轻量加载器（test/helpers/ts-loader/）：只去掉类型，转换结果按内容缓存。
 * 跑的仍是真实的 src/main.ts、真实的进程与标准输入输出，只是每个进程省下约 0.3 秒 CPU：
 * 一个步骤的测试要起几十个 CLI 进程。npm start 走的 tsx 仍有测试覆盖：golden.test.ts（runScriptWith(tsxLoader, …)），
 * 以及（从 step07 起）SIGINT 与伪终端的测试。
 */
export const testLoader = pathToFileURL(path.join(path.dirname(fileURLToPath(import.meta.url)), "ts-loader", "register.mjs")).href;

/** 复制 src/ 与 extensions/ 到一个新的临时目录，返回它的路径。 */
export function makeSandbox(): string {
  // 目录名像学习者自己起的：空格、汉字、# 和 %。路径拼错（如 "file://" + 路径，# 之后成了 URL 的片段）的代码在这里就坏，
  // Linux 与 Windows 上都一样；只有 path 与 pathToFileURL 才对
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "学 C# 的 100% 笔记-"));
  for (const name of ["src", "extensions", "package.json"]) {
    const from = path.join(stepRoot, name);
    // filter 不是多余的：没有它时 Windows 上的 Node 22、24 走原生的快速复制，路径里有汉字等非 ASCII 字符就什么也不复制
    // （或者整个进程崩掉，nodejs/node#61878、#54476）；有 filter 就走 JS 的复制，没有这个问题
    if (fs.existsSync(from)) fs.cpSync(from, path.join(dir, name), { recursive: true, filter: () => true });
  }
  return dir;
}

export function removeSandbox(dir: string): void {
  // Windows 上文件的最后一个句柄关掉之前，目录可能还删不空（ENOTEMPTY、EBUSY）：测试里的每次清理都重试几次
  fs.rmSync(dir, { recursive: true, force: true, maxRetries: 10 });
}

export interface CliResult {
  stdout: string;
  stderr: string;
  code: number | null;
}

/** 运行 src/main.ts：把 input 整个写进标准输入后关闭（相当于最后按了 Ctrl+D）。 */
export function runCli(cwd: string, args: string[], input: string, timeoutMs = 60_000): Promise<CliResult> {
  return runScript(cwd, "src/main.ts", args, input, timeoutMs);
}

/** 运行 cwd 下的一个 .ts 脚本（用轻量加载器 testLoader），收集输出。超时则杀掉进程并让测试失败。 */
export function runScript(cwd: string, script: string, args: string[], input: string, timeoutMs = 60_000): Promise<CliResult> {
  return runScriptWith(testLoader, cwd, script, args, input, timeoutMs);
}

/**
 * 同 runScript，但指定 --import 的加载器。golden.test.ts 用 tsxLoader：
 * 和 npm run demo / npm start 一样经过 tsx，每个步骤都有测试走这条路。
 */
export function runScriptWith(loader: string, cwd: string, script: string, args: string[], input: string, timeoutMs = 60_000, env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", loader, script, ...args], {
      cwd,
      env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0", ...env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error(`进程超过 ${timeoutMs}ms 没有结束。\nstdout:\n${stdout}\nstderr:\n${stderr}`));
    }, timeoutMs);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ stdout, stderr, code });
    });
    child.stdin.end(input);
  });
}

/**
 * 跑 demo，和 npm run demo 一样经过 tsx（其余 CLI 测试用的是轻量加载器）。
 * demo 的会话文件（step06 起才有）写进这次调用自己的临时目录（demo.ts 读 DEMO_SESSIONS_DIR）：
 * 几份 npm test 同时跑时不会抢同一个 .sessions/demo.jsonl，也不碰学习者自己的。
 * demo 若打印会话文件的路径（step06 的第二个进程会），换回默认的 .sessions，golden 里写的是它。
 */
export async function runDemo(): Promise<CliResult> {
  const sessionsDir = fs.mkdtempSync(path.join(os.tmpdir(), "demo-sessions-"));
  try {
    const result = await runScriptWith(tsxLoader, stepRoot, "src/demo.ts", [], "", 60_000, { DEMO_SESSIONS_DIR: sessionsDir });
    const shown = path.relative(stepRoot, sessionsDir).split(path.sep).join("/");
    return { ...result, stdout: result.stdout.split(shown).join(".sessions") };
  } finally {
    fs.rmSync(sessionsDir, { recursive: true, force: true, maxRetries: 10 });
  }
}
