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

import { providerDir } from "./provider-dir.js";
import { cachedFile, esbuild } from "./ts-loader/cache.mjs";

export { withoutProvider } from "./provider-dir.js";

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
 * 以及 pty.test.ts 里经过 tsx 命令行的那个 Ctrl+C 用例（其余 SIGINT 与伪终端的测试测的是信号，不是加载方式）。
 */
export const testLoader = pathToFileURL(path.join(path.dirname(fileURLToPath(import.meta.url)), "ts-loader", "register.mjs")).href;

/**
 * 一个新的临时目录，当作步骤目录的副本：extensions/ 与 package.json 复制过去（再链上本地脚本服务器），.sessions/ 写在这里。
 * src/ 默认不复制：测试进程里跑的程序与起的子进程都用步骤自己的 src/（打包文件放进副本的 src/，见 scriptArgs）；
 * 要改副本里源码的测试给 { src: true }。
 */
export function makeSandbox(name = "学 C 的 100% 笔记-", options: { src?: boolean } = {}): string {
  // 目录名像学习者自己起的：空格、汉字和 %。路径拼错的代码在这里就坏，Linux 与 Windows 上都一样；只有 path 与 pathToFileURL 才对。
  // 名字里的 # 只有真实进程的加载器测得了（vitest 在测试进程里把 file URL 里的 %23 当成了片段）：见 cli.test.ts 里给了 name 的那个用例
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), name));
  for (const name of [...(options.src ? ["src"] : []), "extensions", "package.json"]) {
    const from = path.join(stepRoot, name);
    // filter 不是多余的：没有它时 Windows 上的 Node 22、24 走原生的快速复制，路径里有汉字等非 ASCII 字符就什么也不复制
    // （或者整个进程崩掉，nodejs/node#61878、#54476）；有 filter 就走 JS 的复制，没有这个问题
    if (fs.existsSync(from)) fs.cpSync(from, path.join(dir, name), { recursive: true, filter: () => true });
  }
  // 本地脚本服务器是仓库里的工具包（labs/scripted-provider/），不在 src/ 里：让副本也找得到它
  fs.mkdirSync(path.join(dir, "node_modules"));
  if (providerDir !== undefined) fs.symlinkSync(providerDir, path.join(dir, "node_modules", "scripted-provider"), "junction");
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
 * 子进程的环境变量：去掉开发者机器上可能设置的模型配置（HARNESS_*、*_API_KEY），
 * 否则「没配密钥」的测试会真的连上 OpenAI。extra 里再按需加回来。
 * 本地脚本服务器的节奏（SCRIPTED_PROVIDER_CHUNK_DELAY_MS）也去掉：交互的测试要在吐字途中按 Ctrl+C，得有 npm start 的 40ms 一段。
 */
export function cleanEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0" };
  for (const name of Object.keys(env)) {
    if (name.startsWith("HARNESS_") || name === "OPENAI_API_KEY" || name === "ANTHROPIC_API_KEY" || name === PACING) delete env[name];
  }
  return { ...env, ...extra };
}

/** 本地脚本服务器读的环境变量：给了就替掉 main.ts 里 40ms 一段的节奏（labs/scripted-provider/src/scripted-provider.ts）。 */
const PACING = "SCRIPTED_PROVIDER_CHUNK_DELAY_MS";

/**
 * 在子进程里运行 src/main.ts：把 input 整个写进标准输入后关闭（相当于最后按了 Ctrl+D）。
 * 只给进程边界本身的测试用（真实的标准输入、信号、进程退出）；其余的在测试进程里跑（helpers/in-process.ts）。
 */
export function runCliProcess(cwd: string, args: string[], input: string, env: NodeJS.ProcessEnv = {}, timeoutMs = 60_000): Promise<CliResult> {
  return runScript(cwd, "src/main.ts", args, input, env, timeoutMs);
}

/** 在副本 cwd 里运行 src/main.ts 的 node 参数（见 scriptArgs）。 */
export function mainArgs(cwd: string, args: string[]): string[] {
  return scriptArgs(cwd, "src/main.ts", args);
}

/**
 * 在 cwd 里运行 script（.ts）的 node 参数。
 *
 * 一个步骤的测试要起几十个子进程，每个都让加载器线程逐个转换、解析二三十个模块，CPU 花得比测试本身还多。
 * 所以这里先把 script 用 esbuild 打成一个 .mjs（按内容缓存，同一份源码只打一次），子进程直接 node 它：
 * 每个进程省下约 0.13 秒 CPU。跑的仍是 src/ 里的代码、真实的进程与标准输入输出。
 * 用 import.meta.url 找项目根目录的脚本（main.ts），打包文件要放回它旁边，根目录才不变：
 * 这只在临时副本里做，不往仓库的 src/ 里写文件。
 */
export function scriptArgs(cwd: string, script: string, args: string[], external: string[] = []): string[] {
  // 副本里没有 src/（makeSandbox 默认不复制）：打包步骤自己的源码，打包文件照样放进副本里的同一个位置
  const place = path.resolve(cwd, script);
  const entry = fs.existsSync(place) ? place : path.join(stepRoot, script);
  const needsOwnPlace = fs.readFileSync(entry, "utf8").includes("import.meta.url");
  if (needsOwnPlace && path.resolve(cwd) === stepRoot) return ["--import", testLoader, script, ...args];
  // 扩展是运行时才 import 的 .ts，打包替不了它：这时再挂上轻量加载器（它只需转换扩展那一两个文件）
  const tsExtension = args.some((arg, i) => args[i - 1] === "--extension" && /\.m?ts$/.test(arg));
  const loader = tsExtension ? ["--import", testLoader] : [];
  let bundle = bundled(entry, external);
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

/** 把 entry 连同它 import 的一切（含本地脚本服务器，除非它在 external 里）打成一个 .mjs，返回缓存里那个文件。 */
function bundled(entry: string, external: string[]): string {
  const hash = createHash("sha256").update(esbuild().version).update(path.basename(entry)).update(JSON.stringify(external));
  for (const dir of [path.dirname(entry), ...(providerDir === undefined ? [] : [path.join(providerDir, "src")])]) hash.update(sourcesDigest(dir));
  return cachedFile("bundles", `${hash.digest("hex")}.mjs`, () => {
    const options = { entryPoints: [entry], bundle: true, external, platform: "node", format: "esm", target: "node20", write: false, logLevel: "error" };
    return esbuild().buildSync(options).outputFiles[0]!.contents;
  });
}

/**
 * 运行 cwd 下的一个 .ts 脚本（怎么运行见 scriptArgs），收集输出。超时则杀掉进程并让测试失败。
 * 输入一次写完、中途不按键，所以本地脚本服务器不必一段段地等：节奏设成 0（输出一字不差，一次对话省下几百毫秒到几秒）。
 * 要比节奏的测试在 env 里给 PACING 自己的值。
 */
export function runScript(cwd: string, script: string, args: string[], input: string, env: NodeJS.ProcessEnv = {}, timeoutMs = 60_000): Promise<CliResult> {
  return runNode(cwd, scriptArgs(cwd, script, args), input, { [PACING]: "0", ...env }, timeoutMs);
}

/**
 * 同 runCli，但本地脚本服务器不打进包里：import("scripted-provider") 留到运行时，照着副本里的 node_modules 去找。
 * 测「单独复制出来的步骤目录（没有工具包）」用：删掉副本里的链接，进程就真的找不到它，和走加载器时一样。
 */
export function runCliWithoutProvider(cwd: string, args: string[], input: string): Promise<CliResult> {
  return runNode(cwd, scriptArgs(cwd, "src/main.ts", args, ["scripted-provider"]), input, { [PACING]: "0" }, 60_000);
}

/**
 * 同 runScript，但指定 --import 的加载器。golden.test.ts 用 tsxLoader：
 * 和 npm run demo / npm start 一样经过 tsx，每个步骤都有测试走这条路。
 */
export function runScriptWith(loader: string, cwd: string, script: string, args: string[], input: string, env: NodeJS.ProcessEnv = {}, timeoutMs = 60_000): Promise<CliResult> {
  return runNode(cwd, ["--import", loader, script, ...args], input, env, timeoutMs);
}

/** 用当前的 node 跑 nodeArgs，把 input 整个写进标准输入后关闭，收集输出。超时则杀掉进程并让测试失败。 */
function runNode(cwd: string, nodeArgs: string[], input: string, env: NodeJS.ProcessEnv, timeoutMs: number): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, nodeArgs, {
      cwd,
      env: cleanEnv(env),
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
    const result = await runScriptWith(tsxLoader, stepRoot, "src/demo.ts", [], "", { DEMO_SESSIONS_DIR: sessionsDir }, 110_000);
    const shown = path.relative(stepRoot, sessionsDir).split(path.sep).join("/");
    return { ...result, stdout: result.stdout.split(shown).join(".sessions") };
  } finally {
    fs.rmSync(sessionsDir, { recursive: true, force: true, maxRetries: 10 });
  }
}
