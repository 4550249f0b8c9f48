// 用法：npm run exercise [-- <编号> [--hint | --watch | --dir <步骤目录>]]
// 第 8 章每一章的练习检查器：按行为检查学习者写的文件，提示分级给出。详见 scripts/lib/exercises/cli.ts。
// 维护用：npm run exercise -- --update-manifest 重写 src/ 的哈希清单（没有 git 时用它核对「src/ 没改」）。
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

import { shouldColor } from "./lib/color.ts";
import { runCli, parseArgs, USAGE } from "./lib/exercises/cli.ts";
import { EXERCISES, findExercise } from "./lib/exercises/registry.ts";
import { lineHashes, LINES_FILE, manifestOf, MANIFEST_FILE } from "./lib/exercises/src-unchanged.ts";
import { repoRoot } from "./lib/paths.ts";
import { stepDir } from "./lib/steps.ts";
import { resolveTsxCli } from "./lib/tsx-cli.ts";

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

/**
 * --watch：先检查一次，之后步骤目录里有文件变化就再检查一次（停顿 300 毫秒再跑，连续保存只算一次）。
 * 每次都在新的子进程里检查：同一个进程里 import() 过的模块不会重新加载，改了也看不到。
 */
function watch(id: number, dirArgs: string[], dir: string): void {
  const tsx = resolveTsxCli();
  const script = fileURLToPath(import.meta.url);
  let running = false;
  let again = false;
  let timer: NodeJS.Timeout | undefined;
  const run = (): void => {
    if (running) {
      again = true;
      return;
    }
    running = true;
    if (process.stdout.isTTY) process.stdout.write("\u001bc"); // 终端里先清屏，写进文件时不加控制字符
    const child = spawn(process.execPath, [tsx, script, String(id), ...dirArgs], { stdio: "inherit" });
    child.on("exit", () => {
      running = false;
      console.log(`\n（--watch：保存 ${path.basename(dir)} 里的文件就会重新检查；Ctrl+C 退出）`);
      if (again) {
        again = false;
        run();
      }
    });
  };
  const ignored = /(^|[\\/])(node_modules|\.sessions|\.git)([\\/]|$)/;
  fs.watch(dir, { recursive: true }, (_event, name) => {
    if (name !== null && ignored.test(String(name))) return;
    clearTimeout(timer);
    timer = setTimeout(run, 300);
  });
  run();
}

async function main(): Promise<number> {
  if (argv.length === 1 && argv[0] === "--update-manifest") return updateManifest();
  const parsed = parseArgs(argv);
  if (typeof parsed !== "string" && parsed.watch && parsed.id !== undefined) {
    const exercise = findExercise(parsed.id);
    if (exercise === undefined) return runCli([String(parsed.id)], env());
    const dirArgs = parsed.dir !== undefined ? ["--dir", parsed.dir] : [];
    watch(exercise.id, dirArgs, parsed.dir ?? stepDir(repoRoot, exercise.step));
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
