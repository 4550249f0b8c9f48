/**
 * 测试辅助：在一个临时目录里运行真实的 CLI 进程。
 *
 * 为什么要复制到临时目录：CLI 把会话写进「项目根目录/.sessions」，
 * 每个测试用自己的一份副本，互不干扰，也不会在仓库里留下文件。
 */

import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";

import { cachedFile, esbuild } from "./ts-loader/cache.mjs";

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
 * 轻量加载器（test/helpers/ts-loader/）：CLI 进程带着 .ts 扩展时挂上它：只去掉类型，转换结果按内容缓存。
 * 跑的仍是真实的源码、真实的进程与标准输入输出，只是每个进程比 tsx 省下约 0.3 秒 CPU；其余的连它也不要（见 scriptArgs）。
 * npm start 走的 tsx 仍有测试覆盖：golden.test.ts（runScriptWith(tsxLoader, …)），
 * 以及（从 step07 起）pty.test.ts 里经过 tsx 命令行的那个 Ctrl+C 用例（其余 SIGINT 与伪终端的测试测的是信号，不是加载方式）。
 */
export const testLoader = pathToFileURL(path.join(path.dirname(fileURLToPath(import.meta.url)), "ts-loader", "register.mjs")).href;

/**
 * 一个新的临时目录，当作步骤目录的副本：extensions/ 与 package.json 复制过去，.sessions/ 写在这里。
 * src/ 默认不复制：测试进程里跑的程序与起的子进程都用步骤自己的 src/（打包文件放进副本的 src/，见 scriptArgs）；
 * 要改副本里源码的测试给 { src: true }。
 */
export function makeSandbox(options: { src?: boolean } = {}): string {
  // 目录名像学习者自己起的：空格、汉字、# 和 %。路径拼错（如 "file://" + 路径，# 之后成了 URL 的片段）的代码在这里就坏，
  // Linux 与 Windows 上都一样；只有 path 与 pathToFileURL 才对
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "学 C# 的 100% 笔记-"));
  for (const name of [...(options.src ? ["src"] : []), "extensions", "package.json"]) {
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

/**
 * 运行 src/main.ts：把 input 整个写进标准输入后关闭（相当于最后按了 Ctrl+D）。
 *
 * 跑在测试进程的一个 worker 线程里，而不是一个新的 Node 进程：worker 有自己的 process.argv、环境变量、
 * 标准输入输出和 process.exit（退出码照样拿得到），跑的是同一个打包文件（见 scriptArgs），却省下每次启动进程的 CPU。
 * 输入一次写完、中途不按键，吐字的节奏不改变输出：所以 worker 里的 setTimeout 一律立刻到点（src/ 里只有假模型吐字用它），
 * 一次对话从一两秒变成几十毫秒。要真实的节奏、信号或另一个进程号的测试用 runCliProcess。
 * preload（文件 URL）在 main.ts 之前于 worker 里导入：故障注入（helpers/fs-faults.mjs）换掉的是这个 worker 自己的 fs，
 * 测试进程的不受影响，像子进程里的 --import 一样，却不必为它起一个进程、按真实的节奏吐字。
 */
export function runCli(cwd: string, args: string[], input: string, timeoutMs = 60_000, preload?: string): Promise<CliResult> {
  const nodeArgs = scriptArgs(cwd, "src/main.ts", args);
  const at = nodeArgs[0] === "--import" ? 2 : 0; // 带 .ts 扩展时前面是 --import <加载器>
  const main = pathToFileURL(path.resolve(cwd, nodeArgs[at]!)).href;
  // 带 .ts 扩展时先在 worker 里装上轻量加载器（worker 的 execArgv 里的 --import 在 vitest 的进程里不生效）。
  // 程序走完（/exit 之后还有没读的输入）时，真实的进程照样退出：暂停的管道不占着事件循环；
  // worker 的标准输入却会一直等那些字被读走，所以最后把它读空（读到的扔掉）。
  // 这个差别是 worker 自己的：测程序结束后进程退不退的，是子进程的测试（process-exit.test.ts、hostile-cli.test.ts）
  const before = [...(at === 2 ? [nodeArgs[1]!] : []), ...(preload !== undefined ? [preload] : [])]; // 加载器在前，preload 随后
  const loader = before.map((url) => `await import(${JSON.stringify(url)});\n`).join("");
  const source = `${loader}const realSetTimeout = globalThis.setTimeout;
globalThis.setTimeout = (callback, _ms, ...rest) => realSetTimeout(callback, 0, ...rest);
await import(${JSON.stringify(main)});
process.stdin.resume();`;
  return new Promise((resolve, reject) => {
    const worker = new Worker(source, {
      eval: true,
      argv: nodeArgs.slice(at + 1),
      execArgv: [],
      env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0" },
      stdin: true,
      stdout: true,
      stderr: true,
    });
    let stdout = "";
    let stderr = "";
    worker.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    worker.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => {
      void worker.terminate();
      reject(new Error(`程序超过 ${timeoutMs}ms 没有结束。\nstdout:\n${stdout}\nstderr:\n${stderr}`));
    }, timeoutMs);
    // 没接住的错误：像进程那样留下它的说法，退出码 1
    worker.on("error", (error) => (stderr += `${error.stack ?? String(error)}\n`));
    worker.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ stdout, stderr, code });
    });
    worker.stdin!.end(input);
  });
}

/** 在子进程里运行 src/main.ts：给要真实进程的测试（信号、另一个进程号、真实的吐字节奏）。 */
export function runCliProcess(cwd: string, args: string[], input: string, timeoutMs = 60_000): Promise<CliResult> {
  return runScript(cwd, "src/main.ts", args, input, timeoutMs);
}

/** 在副本 cwd 里运行 src/main.ts 的 node 参数（见 scriptArgs）。 */
export function mainArgs(cwd: string, args: string[]): string[] {
  return scriptArgs(cwd, "src/main.ts", args);
}

/**
 * 在 cwd 里运行 script（.ts）的 node 参数。
 *
 * 一个步骤的测试要起几十个子进程，每个都让加载器线程逐个转换、解析一二十个模块，CPU 花得比测试本身还多。
 * 所以这里先把 script 用 esbuild 打成一个 .mjs（按内容缓存，同一份源码只打一次），子进程直接 node 它：
 * 每个进程省下约 0.18 秒 CPU（约 0.32 → 0.14 秒）。跑的仍是 src/ 里的代码、真实的进程与标准输入输出。
 * 用 import.meta.url 找项目根目录的脚本（main.ts），打包文件要放回它旁边，根目录才不变：
 * 这只在临时副本里做，不往仓库的 src/ 里写文件。
 */
export function scriptArgs(cwd: string, script: string, args: string[]): string[] {
  // 副本里没有 src/（makeSandbox 默认不复制）：打包步骤自己的源码，打包文件照样放进副本里的同一个位置
  const place = path.resolve(cwd, script);
  const entry = fs.existsSync(place) ? place : path.join(stepRoot, script);
  const needsOwnPlace = fs.readFileSync(entry, "utf8").includes("import.meta.url");
  if (needsOwnPlace && path.resolve(cwd) === stepRoot) return ["--import", testLoader, script, ...args];
  // 扩展是运行时才 import 的 .ts，打包替不了它：这时再挂上轻量加载器（它只需转换扩展那一两个文件）
  const tsExtension = args.some((arg, i) => args[i - 1] === "--extension" && /\.m?ts$/.test(arg));
  const loader = tsExtension ? ["--import", testLoader] : [];
  let bundle = bundled(entry);
  if (needsOwnPlace) {
    const beside = place.replace(/\.ts$/, ".test-bundle.mjs");
    fs.mkdirSync(path.dirname(beside), { recursive: true });
    fs.copyFileSync(bundle, beside); // 每次都复制：测试若改了副本里的源码，旁边这份也跟着换
    bundle = beside;
  }
  return [...loader, bundle, ...args];
}

const digests = new Map<string, string>();

/**
 * 目录里全部 .ts 的内容摘要。步骤自己的源码在一次测试运行里不会变（测试只改沙箱里的副本），算一次就记住：
 * 一个测试文件要起好几个子进程，每次都把几十个文件读一遍、算一遍，CPU 花得不少；沙箱里的目录每次都重算。
 */
function sourcesDigest(dir: string): string {
  // 在步骤目录里面：相对路径不以 .. 开头，也不是绝对路径（Windows 上沙箱在另一个盘时，relative 交回的是绝对路径）
  const inside = path.relative(stepRoot, dir);
  const fixed = (!inside.startsWith("..") && !path.isAbsolute(inside)) || dir.includes(`${path.sep}scripted-provider${path.sep}`);
  const known = fixed ? digests.get(dir) : undefined;
  if (known !== undefined) return known;
  const hash = createHash("sha256");
  for (const name of fs.readdirSync(dir, { recursive: true, encoding: "utf8" }).sort()) {
    const file = path.join(dir, name);
    if (name.endsWith(".ts") && fs.statSync(file).isFile()) hash.update(name).update(fs.readFileSync(file));
  }
  const digest = hash.digest("hex");
  if (fixed) digests.set(dir, digest);
  return digest;
}

/** 把 entry 连同它 import 的一切打成一个 .mjs，返回缓存里那个文件。 */
function bundled(entry: string): string {
  const hash = createHash("sha256").update(esbuild().version).update(path.basename(entry)).update(sourcesDigest(path.dirname(entry)));
  return cachedFile("bundles", `${hash.digest("hex")}.mjs`, () => {
    const options = { entryPoints: [entry], bundle: true, platform: "node", format: "esm", target: "node20", write: false, logLevel: "error" };
    return esbuild().buildSync(options).outputFiles[0]!.contents;
  });
}

/** 运行 cwd 下的一个 .ts 脚本（怎么运行见 scriptArgs），收集输出。超时则杀掉进程并让测试失败。 */
export function runScript(cwd: string, script: string, args: string[], input: string, timeoutMs = 60_000): Promise<CliResult> {
  return runNode(cwd, scriptArgs(cwd, script, args), input, timeoutMs, {});
}

/**
 * 同 runScript，但指定 --import 的加载器。golden.test.ts 用 tsxLoader：
 * 和 npm run demo / npm start 一样经过 tsx，每个步骤都有测试走这条路。
 */
export function runScriptWith(loader: string, cwd: string, script: string, args: string[], input: string, timeoutMs = 60_000, env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  return runNode(cwd, ["--import", loader, script, ...args], input, timeoutMs, env);
}

/** 用当前的 node 跑 nodeArgs，把 input 整个写进标准输入后关闭，收集输出。超时则杀掉进程并让测试失败。 */
function runNode(cwd: string, nodeArgs: string[], input: string, timeoutMs: number, env: NodeJS.ProcessEnv): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, nodeArgs, {
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
    // 子进程不读输入就退出（参数错了、一开始就失败）时管道已关，写入得到 EPIPE：测试看的是退出码与输出，不是输入读没读
    child.stdin.on("error", () => {});
    child.stdin.end(input);
  });
}

/**
 * 跑 demo，和 npm run demo 一样经过 tsx（其余 CLI 测试跑的是打包文件，见 scriptArgs）。
 * demo 的会话文件（step06 起才有）写进这次调用自己的临时目录（demo.ts 读 DEMO_SESSIONS_DIR）：
 * 几份 npm test 同时跑时不会抢同一个 .sessions/demo.jsonl，也不碰学习者自己的。
 * demo 若打印会话文件的路径（step06 的第二个进程会），换回默认的 .sessions，golden 里写的是它。
 */
export async function runDemo(): Promise<CliResult> {
  const sessionsDir = fs.mkdtempSync(path.join(os.tmpdir(), "demo-sessions-"));
  try {
    // 上限只防真卡住：demo 经过 tsx 要起好几个进程，负载二三十的两核机器上一分钟不够；比 vitest 的 120 秒短，超时时先打印已有的输出
    const result = await runScriptWith(tsxLoader, stepRoot, "src/demo.ts", [], "", 110_000, { DEMO_SESSIONS_DIR: sessionsDir });
    const shown = path.relative(stepRoot, sessionsDir).split(path.sep).join("/");
    return { ...result, stdout: result.stdout.split(shown).join(".sessions") };
  } finally {
    fs.rmSync(sessionsDir, { recursive: true, force: true, maxRetries: 10 });
  }
}
