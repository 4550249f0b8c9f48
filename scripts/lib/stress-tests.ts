import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import path from "node:path";
import { paint } from "./color.ts";
import { defaultLoad, startCpuLoad } from "./cpu-load.ts";
import type { Writer } from "./golden-runner.ts";
import { killTree, treeSpawnOptions } from "./kill-tree.ts";

/**
 * npm run stress -- --tests N：同一时刻起 N 份完整的 npm test（仓库根目录的 vitest run），
 * 再加上每个核一个忙循环。全部通过才算数——证明测试只等事件、不和机器的快慢赛跑。
 */

export interface TestStressOptions {
  root: string;
  /** 同时跑几份 npm test */
  copies: number;
  out: Writer;
  /** 忙循环子进程的个数，默认 os.availableParallelism() */
  load?: number;
  /** 每一份运行的命令（node 之后的参数），默认是仓库根目录的 vitest run；测试里换成假的 */
  command?: string[];
  /** 单份 npm test 的上限；只防真卡住，默认 30 分钟 */
  timeoutMs?: number;
  color?: boolean;
  onLoadStarted?: (pids: number[]) => void;
}

export interface TestRun {
  copy: number;
  exitCode: number | null;
  timedOut: boolean;
  elapsedMs: number;
  output: string;
}

export interface TestStressReport {
  load: number;
  runs: TestRun[];
  elapsedMs: number;
}

const DEFAULT_TIMEOUT_MS = 30 * 60_000;

// 正在跑的 npm test（各自是一个进程组）：Ctrl+C 时由 killActiveTestRuns 整组杀掉
const active = new Set<ReturnType<typeof spawn>>();

export function killActiveTestRuns(): void {
  for (const child of active) killTree(child, "SIGKILL");
}

/** 仓库根目录的 npm test 就是 vitest run：直接用当前 node 跑 vitest 的入口，不经过 shell，Windows 上也一样 */
export function npmTestCommand(root: string): string[] {
  const require = createRequire(path.join(root, "package.json"));
  const pkgFile = require.resolve("vitest/package.json");
  const bin = (require(pkgFile) as { bin: Record<string, string> }).bin.vitest ?? "vitest.mjs";
  return [path.join(path.dirname(pkgFile), bin), "run"];
}

function runOnce(root: string, command: string[], copy: number, timeoutMs: number): Promise<TestRun> {
  const started = performance.now();
  return new Promise((resolve) => {
    // NO_COLOR：输出要原样摘给人看，不带颜色控制符
    const child = spawn(process.execPath, command, {
      cwd: root,
      env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0", CI: "1" },
      stdio: ["ignore", "pipe", "pipe"],
      ...treeSpawnOptions,
    });
    active.add(child);
    const chunks: Buffer[] = [];
    child.stdout.on("data", (c: Buffer) => chunks.push(c));
    child.stderr.on("data", (c: Buffer) => chunks.push(c));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killTree(child, "SIGKILL");
    }, timeoutMs);
    const finish = (exitCode: number | null, extra = ""): void => {
      clearTimeout(timer);
      active.delete(child);
      const output = Buffer.concat(chunks).toString("utf8") + extra;
      resolve({ copy, exitCode, timedOut, elapsedMs: performance.now() - started, output });
    };
    child.on("error", (e) => finish(null, `无法启动：${e.message}\n`));
    child.on("close", (code) => finish(code));
  });
}

/** vitest 的汇总行（默认输出的「Test Files …」「Tests …」，或根目录简短输出的「✓ 合计：…」），没有时返回空 */
export function summaryOf(output: string): string {
  return output
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => /^(Test Files|Tests)\s|^[✓✗] 合计：/.test(l))
    .map((l) => l.replace(/\s+/g, " "))
    .join("；");
}

/** 失败时摘给人看的部分：FAIL 行、报错行与 vitest 的汇总；找不到就给最后 40 行 */
export function failureExcerpt(output: string): string {
  const lines = output.split("\n");
  const picked = lines.filter((l) => /FAIL|×|✗|Error|Warning|Test Files|Tests\s/.test(l)).slice(0, 60);
  const chosen = picked.length > 0 ? picked : lines.slice(-40);
  return chosen.map((l) => `  │ ${l}`).join("\n");
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

export async function runTestStress(options: TestStressOptions): Promise<{ code: number; report: TestStressReport }> {
  if (!Number.isInteger(options.copies) || options.copies < 1) throw new RangeError(`--tests 需要正整数，收到 ${options.copies}`);
  const started = performance.now();
  const p = paint(options.color ?? false);
  const loadCount = options.load ?? defaultLoad();
  const command = options.command ?? npmTestCommand(options.root);
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const report: TestStressReport = { load: loadCount, runs: [], elapsedMs: 0 };

  options.out.write(
    `负载：${loadCount} 个忙循环子进程（os.availableParallelism() = ${defaultLoad()}）；` +
      `同一时刻起 ${options.copies} 份完整的 npm test\n\n`,
  );
  const load = startCpuLoad(loadCount);
  try {
    options.onLoadStarted?.(load.pids);
    const copies = Array.from({ length: options.copies }, (_, i) => i + 1);
    report.runs = await Promise.all(copies.map((copy) => runOnce(options.root, command, copy, timeoutMs)));
  } finally {
    await load.stop();
  }
  report.elapsedMs = performance.now() - started;

  for (const run of report.runs) {
    const ok = run.exitCode === 0 && !run.timedOut;
    const verdict = ok ? p.green("通过") : p.red(run.timedOut ? `超时（${seconds(timeoutMs)}）` : `失败（退出码 ${run.exitCode}）`);
    const summary = summaryOf(run.output);
    options.out.write(`npm test 第 ${run.copy} 份  ${verdict}  ${seconds(run.elapsedMs)}${summary === "" ? "" : `  ${summary}`}\n`);
    if (!ok) options.out.write(`${failureExcerpt(run.output)}\n\n`);
  }
  const passed = report.runs.filter((r) => r.exitCode === 0 && !r.timedOut).length;
  const all = passed === options.copies;
  const count = `${passed}/${options.copies}`;
  options.out.write(
    `\n${all ? "全部通过" : "没有做到 N/N"}：npm test ${all ? p.green(count) : p.red(count)}（${options.copies} 份同时跑，外加 ${loadCount} 个忙循环）；用时 ${seconds(report.elapsedMs)}\n`,
  );
  return { code: all ? 0 : 1, report };
}
