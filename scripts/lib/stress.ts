import { paint } from "./color.ts";
import { startCpuLoad, defaultLoad } from "./cpu-load.ts";
import { judge, type StepVerdict } from "./golden-check.ts";
import type { Writer } from "./golden-runner.ts";
import { mapInOrder } from "./pool.ts";
import { demoTimeoutMs, runDemo } from "./run-demo.ts";
import { listSteps, stepDir } from "./steps.ts";

export const DEFAULT_RUNS = 20;

export interface StressOptions {
  root: string;
  /** 每个步骤的 demo 跑几次 */
  runs: number;
  out: Writer;
  /** 忙循环子进程的个数，默认 os.availableParallelism() */
  load?: number;
  /** 同时压几个步骤（每个步骤内部总是一次接一次地跑），默认 2 */
  concurrency?: number;
  timeoutMs?: number;
  tsxCli?: string;
  color?: boolean;
  /** 每跑完一次 demo 回调一次（命令行用它在终端上显示进度） */
  onProgress?: (done: number, total: number) => void;
  /** 负载启动后回调，参数是忙循环的 pid（测试用来确认结束后都被杀掉了） */
  onLoadStarted?: (pids: number[]) => void;
}

export interface StepStress {
  step: string;
  runs: number;
  passed: number;
  /** 失败的是第几次（从 1 数） */
  failedRuns: number[];
  /** 第一次失败的完整结论（含 diff） */
  firstFailure?: { run: number; verdict: StepVerdict };
  slowestMs: number;
}

export interface StressReport {
  load: number;
  steps: StepStress[];
  elapsedMs: number;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

function indent(text: string, prefix: string): string {
  return text.replace(/\n$/, "").split("\n").map((l) => prefix + l).join("\n");
}

/** 一个步骤的结果：`step07-abort-extensions  20/20`，失败时附上第一次失败的原因与 diff */
export function formatStepStress(s: StepStress, width: number, color = false): string {
  const p = paint(color);
  const count = `${s.passed}/${s.runs}`;
  let text = `${s.step.padEnd(width)}  ${s.passed === s.runs ? p.green(count) : p.red(count)}\n`;
  const first = s.firstFailure;
  if (first === undefined) return text;
  text += `  失败的运行：第 ${s.failedRuns.join("、")} 次\n`;
  text += `  第 ${first.run} 次（第一次失败）：${first.verdict.reason ?? "失败"}\n`;
  const stderr = first.verdict.result.stderr.trim();
  if (stderr !== "") text += `  demo 的 stderr（仅供排查，不参与比较）：\n${indent(stderr, "  │ ")}\n`;
  if (first.verdict.diff !== undefined) text += `${first.verdict.diff}\n`;
  return `${text}\n`;
}

/**
 * 压力测试：每个核一个忙循环占满 CPU，同时把每个步骤的 demo 连跑 runs 次，
 * 每次都与 golden 比较（与 `npm run demo` 用同一个 judge）。全部 N/N 才返回 0。
 */
export async function runStress(options: StressOptions): Promise<{ code: number; report: StressReport }> {
  const started = performance.now();
  const steps = listSteps(options.root);
  const loadCount = options.load ?? defaultLoad();
  const report: StressReport = { load: loadCount, steps: [], elapsedMs: 0 };
  if (steps.length === 0) {
    options.out.write("labs/mini-agent-harness/ 下没有找到任何步骤目录（stepNN-名字）。\n");
    return { code: 1, report };
  }
  if (!Number.isInteger(options.runs) || options.runs < 1) throw new RangeError(`运行次数必须是正整数，收到 ${options.runs}`);

  const timeoutMs = options.timeoutMs ?? demoTimeoutMs();
  const concurrency = options.concurrency ?? 2;
  const total = steps.length * options.runs;
  const width = Math.max(...steps.map((s) => s.length));
  let done = 0;

  options.out.write(
    `负载：${loadCount} 个忙循环子进程（os.availableParallelism() = ${defaultLoad()}）；` +
      `每个步骤的 demo 连跑 ${options.runs} 次，同时压 ${Math.min(concurrency, steps.length)} 个步骤\n\n`,
  );

  const load = startCpuLoad(loadCount);
  try {
    options.onLoadStarted?.(load.pids);
    const runOpts = options.tsxCli === undefined ? { timeoutMs } : { timeoutMs, tsxCli: options.tsxCli };
    report.steps = await mapInOrder(
      steps,
      concurrency,
      async (step): Promise<StepStress> => {
        const dir = stepDir(options.root, step);
        const result: StepStress = { step, runs: options.runs, passed: 0, failedRuns: [], slowestMs: 0 };
        for (let run = 1; run <= options.runs; run++) {
          const t0 = performance.now();
          const verdict = judge(step, dir, await runDemo(dir, runOpts), timeoutMs, options.color);
          result.slowestMs = Math.max(result.slowestMs, performance.now() - t0);
          if (verdict.ok) {
            result.passed++;
          } else {
            result.failedRuns.push(run);
            result.firstFailure ??= { run, verdict };
          }
          options.onProgress?.(++done, total);
        }
        return result;
      },
      (s) => options.out.write(formatStepStress(s, width, options.color)),
    );
  } finally {
    await load.stop();
  }

  report.elapsedMs = performance.now() - started;
  const allGreen = report.steps.every((s) => s.passed === s.runs);
  const slowest = report.steps.reduce((a, s) => (s.slowestMs > a.slowestMs ? s : a));
  options.out.write(
    `\n${allGreen ? "全部通过" : "有步骤没有做到 N/N"}：${report.steps.filter((s) => s.passed === s.runs).length}/${steps.length} 个步骤 ${options.runs}/${options.runs}；` +
      `共 ${total} 次 demo，用时 ${seconds(report.elapsedMs)}，最慢的一次 ${seconds(slowest.slowestMs)}（${slowest.step}）\n`,
  );
  return { code: allGreen ? 0 : 1, report };
}
