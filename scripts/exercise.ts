// 用法：npm run exercise [-- <编号> [--hint | --watch | --dir <步骤目录> | --seed <种子>]]
// 第 8 章每一章的练习检查器：按行为检查学习者写的文件，提示分级给出。详见 scripts/lib/exercises/cli.ts。
// 维护用：npm run exercise -- --update-manifest 重写 src/ 的哈希清单（没有 git 时用它核对「src/ 没改」）。
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { isDeepStrictEqual } from "node:util";

import { shouldColor } from "./lib/color.ts";
import { runCli, parseArgs, USAGE } from "./lib/exercises/cli.ts";
import { EXERCISES, findExercise } from "./lib/exercises/registry.ts";
import { lineHashes, LINES_FILE, manifestOf, MANIFEST_FILE } from "./lib/exercises/src-unchanged.ts";
import { repoRoot } from "./lib/paths.ts";
import { stepDir } from "./lib/steps.ts";
import { resolveTsxLoader } from "./lib/tsx-cli.ts";
import { walkFiles } from "./lib/walk-files.ts";

const STATE_FILE = path.join(repoRoot, ".exercise-state.json");
const argv = process.argv.slice(2);

/** 重写哈希清单：只在维护者确认 src/ 的改动是有意的之后运行。 */
function updateManifest(): number {
  const manifest = Object.fromEntries(EXERCISES.map((exercise) => [exercise.step, manifestOf(stepDir(repoRoot, exercise.step))]));
  fs.writeFileSync(MANIFEST_FILE, JSON.stringify(manifest, null, 2) + "\n");
  // 允许「只加不改」的文件另存逐行哈希：没有 git 时靠它判断学习者是不是只加了规则
  const lines = Object.fromEntries(
    EXERCISES.flatMap((exercise) => (exercise.additions ? [[`${exercise.step}/${exercise.additions.file}`, lineHashes(fs.readFileSync(path.join(stepDir(repoRoot, exercise.step), exercise.additions.file), "utf8"))]] : [])),
  );
  fs.writeFileSync(LINES_FILE, JSON.stringify(lines, null, 2) + "\n");
  console.log(`已重写 ${path.relative(repoRoot, MANIFEST_FILE)}（${EXERCISES.length} 个步骤）与 ${path.relative(repoRoot, LINES_FILE)}`);
  return 0;
}

/** 一个预先启动好的检查进程：tsx 和检查器都已加载，就等一声 "go"。 */
interface Worker {
  child: ChildProcess;
  /** 准备好了是 true；还没准备好就退出了（例如启动出错）是 false。 */
  ready: Promise<boolean>;
}

/**
 * --watch：先检查一次，之后步骤目录里有文件变化就再检查一次（停顿 60 毫秒再跑，一次保存触发的几个事件只算一次）。
 * 每次都在新的子进程里检查：同一个进程里 import() 过的模块不会重新加载，改了也看不到。
 * 可是启动一个 tsx 进程要几百毫秒（机器忙时好几秒），所以下一个检查进程在上一次检查完就先启动好，
 * 加载完检查器后停下来等；文件一保存，它立刻开始导入学习者的文件、检查、打印。
 */
function watch(id: number, workerArgs: string[], dir: string): void {
  // 检查进程直接 node --import tsx：不经过 tsx 命令行，每个少起一个 node 进程（信号由这里自己转交，见 stop）
  const tsx = resolveTsxLoader();
  const script = fileURLToPath(import.meta.url);
  const startWorker = (): Worker => {
    const child = spawn(process.execPath, ["--import", tsx, script, "--watch-worker", String(id), ...workerArgs], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
    const ready = new Promise<boolean>((resolve) => {
      child.once("message", () => resolve(true));
      child.once("exit", () => resolve(false));
    });
    return { child, ready };
  };
  let next = startWorker();
  let running = false;
  let again = false;
  let timer: NodeJS.Timeout | undefined;
  const run = async (): Promise<void> => {
    if (running) {
      again = true;
      return;
    }
    running = true;
    let worker = next;
    for (let tries = 0; tries < 2; tries++) {
      if (!(await worker.ready)) {
        worker = startWorker(); // 上一个没能启动：再起一个
        continue;
      }
      if (tries === 0 && process.stdout.isTTY) process.stdout.write("\u001bc"); // 终端里先清屏，写进文件时不加控制字符
      const exited = new Promise<number | null>((resolve) => worker.child.once("exit", resolve));
      worker.child.send("go");
      if ((await exited) !== STALE) break;
      worker = startWorker(); // src/ 变了：预先导入的模块旧了，换一个新进程
    }
    next = startWorker();
    await next.ready; // 下一个检查进程准备好了，才说「保存就会重新检查」
    console.log(`\n（--watch：保存 ${path.basename(dir)} 里的文件就会重新检查；Ctrl+C 退出）`);
    running = false;
    if (again) {
      again = false;
      void run();
    }
  };
  const ignored = /(^|[\\/])(node_modules|\.sessions|\.git)([\\/]|$)/;
  fs.watch(dir, { recursive: true }, (_event, name) => {
    if (name !== null && ignored.test(String(name))) return;
    clearTimeout(timer);
    timer = setTimeout(() => void run(), 60);
  });
  // 被关掉时（Ctrl+C、父进程结束）带走等着的那个检查进程
  const stop = (): void => {
    next.child.kill();
    process.exit(0);
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  void run();
}

/** 预先导入的检查进程发现 src/ 在它导入之后又变了：让父进程换一个现启动的进程来查。 */
const STALE = 75;

/**
 * 预先导入步骤 src/ 里的模块（只是库：入口 main.ts、demo.ts、*-cli.ts 一导入就会运行，不导入）。
 * 导入出错不要紧：真正检查时会再导入一次，把错误报告给学习者。
 */
async function warmUp(dir: string): Promise<void> {
  const src = path.join(dir, "src");
  const libraries = walkFiles(src).filter((file) => file.endsWith(".ts") && !/(^|\/)(main|demo|[\w-]+-cli)\.ts$/.test(file));
  for (const file of libraries) await import(pathToFileURL(path.join(src, file)).href).catch(() => undefined);
  // 学习者刚保存的文件是新内容，tsx 要现编译它；进程里第一次编译要先启动 esbuild（机器忙时一秒多）。
  // 先编译一个内容独一无二的小文件，把这笔开销花在保存之前。
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "exercise-watch-"));
  try {
    const file = path.join(scratch, "warm.ts");
    fs.writeFileSync(file, `export const warm: string = ${JSON.stringify(`${process.pid}-${Date.now()}`)};\n`);
    await import(pathToFileURL(file).href).catch(() => undefined);
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * 预先启动的检查进程：先导入检查器和步骤的 src/，报告「准备好了」，等到 "go" 再检查；父进程没了就退出。
 * 学习者的文件要等到 "go" 之后才导入（它正是会变的那个）。src/ 若在预先导入之后变了（比如按书上第 4 步
 * 改了 src/rules.ts），手里的模块就旧了：以退出码 STALE 结束，父进程换一个新进程重查。
 */
async function watchWorker(args: string[]): Promise<number> {
  const orphaned = (): never => process.exit(0);
  process.once("disconnect", orphaned);
  const parsed = parseArgs(args);
  const exercise = typeof parsed === "string" || parsed.id === undefined ? undefined : findExercise(parsed.id);
  const dir = exercise && typeof parsed !== "string" ? (parsed.dir ?? stepDir(repoRoot, exercise.step)) : undefined;
  const before = dir === undefined ? undefined : manifestOf(dir);
  if (dir !== undefined) await warmUp(dir);
  await new Promise<void>((resolve) => {
    process.once("message", () => resolve());
    process.send?.("ready");
  });
  process.off("disconnect", orphaned);
  if (dir !== undefined && !isDeepStrictEqual(manifestOf(dir), before)) return STALE;
  return runCli(args, env());
}

async function main(): Promise<number> {
  if (argv.length === 1 && argv[0] === "--update-manifest") return updateManifest();
  if (argv[0] === "--watch-worker") return watchWorker(argv.slice(1));
  const parsed = parseArgs(argv);
  if (typeof parsed !== "string" && parsed.watch && parsed.id !== undefined) {
    const exercise = findExercise(parsed.id);
    if (exercise === undefined) return runCli([String(parsed.id)], env());
    const workerArgs = [...(parsed.dir !== undefined ? ["--dir", parsed.dir] : []), ...(parsed.seed !== undefined ? ["--seed", String(parsed.seed)] : [])];
    watch(exercise.id, workerArgs, parsed.dir ?? stepDir(repoRoot, exercise.step));
    return 0;
  }
  if (typeof parsed === "string" && argv.includes("--help")) {
    console.log(USAGE);
    return 0;
  }
  return runCli(argv, env());
}

function env() {
  return { root: repoRoot, stateFile: STATE_FILE, write: (text: string) => process.stdout.write(text), color: shouldColor(process.stdout) };
}

const code = await main();
if (!argv.includes("--watch")) {
  // 学习者的代码可能留下没关的定时器或连接；结论已经打印完，不必等它们。
  // 先等标准输出写完（管道在某些平台上是异步的），再退出。
  process.stdout.write("", () => process.exit(code));
}
