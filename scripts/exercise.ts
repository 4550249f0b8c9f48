// 用法：npm run exercise [-- <编号> [--hint | --watch | --dir <步骤目录> | --seed <种子>]]
// 第 8 章每一章的练习检查器：按行为检查学习者写的文件，提示分级给出。详见 scripts/lib/exercises/cli.ts。
// 学习者的代码在检查进程里运行（scripts/lib/exercises/isolated.ts）：它退出、卡死，这里照样给出结论。
// 维护用：npm run exercise -- --update-manifest 重写 src/ 的哈希清单（没有 git 时用它核对「src/ 没改」）。
import fs from "node:fs";
import path from "node:path";

import { paint, shouldColor } from "./lib/color.ts";
import { dirProblem, parseArgs, runCli, USAGE, type CliEnv } from "./lib/exercises/cli.ts";
import { checkIsolated, startWorker, stopAllWorkers, stopWorker, type Worker } from "./lib/exercises/isolated.ts";
import { EXERCISES, findExercise } from "./lib/exercises/registry.ts";
import { watchAndCheck } from "./lib/exercises/watch.ts";
import { formatReport, runExercise } from "./lib/exercises/run.ts";
import { lineHashes, LINES_FILE, manifestOf, MANIFEST_FILE } from "./lib/exercises/src-unchanged.ts";
import type { Exercise, Report } from "./lib/exercises/types.ts";
import { repoRoot } from "./lib/paths.ts";
import { stepDir } from "./lib/steps.ts";

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
 * --watch：循环本身（清屏、文件一变就再查）在 lib/exercises/watch.ts；这里决定在哪里检查。
 * 每次都在新的检查进程里检查：同一个进程里 import() 过的模块不会重新加载，改了也看不到。
 * 可是启动一个 tsx 进程要几百毫秒（机器忙时好几秒），所以下一个检查进程在上一次检查完就先启动好，
 * 导入检查器和步骤的 src/ 后停下来等；文件一保存，它立刻开始导入学习者的文件、检查，结论由这里打印。
 * 学习者的代码卡死、退出了，那一次照样打印 ✗ 和原因，接着等下一次保存（isolated.ts）。
 */
function watch(exercise: Exercise, dir: string, seed: number | undefined): void {
  const p = paint(shouldColor(process.stdout));
  const options = seed !== undefined ? { seed } : {};
  let next = startWorker(dir);
  watchAndCheck({
    dir,
    out: process.stdout,
    check: async () => {
      if (!(await next.ready)) next = startWorker(dir); // 上一个没能启动：再起一个
      let report = await checkIsolated(exercise, dir, { ...options, worker: next });
      // src/ 在预先导入之后变了：手里的模块旧了，换一个现启动的进程来查
      if (report === "stale") report = await checkIsolated(exercise, dir, { ...options, worker: startWorker(dir) });
      return report === "stale" ? "src/ 一直在变，这次没有检查；保存完再看" : formatReport(report, repoRoot, p, fromStep());
    },
    prepare: async () => {
      next = startWorker(dir);
      await next.ready; // 下一个检查进程准备好了，才说「保存就会重新检查」
    },
    footer: `（--watch：保存 ${path.basename(dir)} 里的文件就会重新检查；Ctrl+C 退出）`,
  });
  // 被关掉时（Ctrl+C、父进程结束）：正在查的和等着的检查进程由 process 的 exit 一起带走（见文件末尾）
  const stop = (): void => process.exit(0);
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

/** 不在 --watch 时：每个练习在一个检查进程里查；列出全部练习时，下一个检查进程在这一个检查时先启动。 */
function isolatedChecks(listing: boolean): { check: NonNullable<CliEnv["check"]>; close(): void } {
  let spare: Worker | undefined;
  return {
    check: async (exercise, dir, options) => {
      // 还没有练习文件：没有学习者的代码要运行，不必起检查进程
      if (!fs.existsSync(path.join(dir, ...exercise.file.split("/")))) return runExercise(exercise, dir, options);
      const worker = spare ?? startWorker();
      spare = listing ? startWorker() : undefined;
      const report = await checkIsolated(exercise, dir, { ...(options.seed !== undefined ? { seed: options.seed } : {}), worker });
      return report === "stale" ? checkIsolated(exercise, dir, options.seed !== undefined ? { seed: options.seed } : {}) as Promise<Report> : report;
    },
    close: () => {
      if (spare) stopWorker(spare);
    },
  };
}

/** 在步骤目录里运行时（它的 npm run exercise 替学习者带上了编号），那个步骤的编号。 */
const fromStep = (): number | undefined => {
  const match = /^step(\d\d)-/.exec(process.env.npm_package_name ?? "");
  return match ? Number(match[1]) : undefined;
};

async function main(): Promise<number> {
  if (argv.length === 1 && argv[0] === "--update-manifest") return updateManifest();
  const parsed = parseArgs(argv, fromStep());
  if (typeof parsed === "string" && argv.includes("--help")) {
    console.log(USAGE);
    return 0;
  }
  if (typeof parsed !== "string" && parsed.watch && parsed.id !== undefined) {
    const exercise = findExercise(parsed.id);
    const problem = exercise && parsed.dir !== undefined ? dirProblem(exercise, parsed.dir) : undefined;
    if (exercise === undefined || problem !== undefined) return runCli([String(parsed.id), ...(parsed.dir !== undefined ? ["--dir", parsed.dir] : [])], env());
    watch(exercise, parsed.dir ?? stepDir(repoRoot, exercise.step), parsed.seed);
    return WATCHING;
  }
  const checks = isolatedChecks(typeof parsed !== "string" && parsed.id === undefined);
  try {
    return await runCli(argv, { ...env(), check: checks.check });
  } finally {
    checks.close();
  }
}

/** main 的返回值：--watch 开始了，进程要一直运行下去。 */
const WATCHING = -1;

function env(): CliEnv {
  const step = fromStep();
  return { root: repoRoot, stateFile: STATE_FILE, write: (text: string) => process.stdout.write(text), color: shouldColor(process.stdout), graduation: true, ...(step !== undefined ? { fromStep: step } : {}) };
}

// 检查进程各自成一个进程组（好连它起的子进程一起结束），终端的 Ctrl+C 到不了它们：这里结束它们
process.on("exit", stopAllWorkers);
if (!argv.includes("--watch")) {
  process.once("SIGINT", () => process.exit(130));
  process.once("SIGTERM", () => process.exit(143));
}
const code = await main();
if (code !== WATCHING) {
  // 结论已经打印完：先等标准输出写完（管道在某些平台上是异步的），再退出
  process.stdout.write("", () => process.exit(code));
}
