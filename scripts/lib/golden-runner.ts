import fs from "node:fs";
import path from "node:path";
import { paint } from "./color.ts";
import { GOLDEN_FILE, judge, readGolden, type StepVerdict } from "./golden-check.ts";
import { mapInOrder } from "./pool.ts";
import { demoTimeoutMs, runDemo } from "./run-demo.ts";
import { listSteps, resolveStep, stepDir } from "./steps.ts";
import { crlfToLf } from "./text.ts";
import { unifiedDiff } from "./unified-diff.ts";

export interface Writer {
  write(text: string): unknown;
}

export interface GoldenOptions {
  root: string;
  out: Writer;
  /** 实时模式下 demo 的 stderr 写到这里（默认与 out 相同） */
  err?: Writer;
  color?: boolean;
  timeoutMs?: number;
  tsxCli?: string;
  /** 全量模式同时跑几个 demo */
  concurrency?: number;
  /** 全量模式至少要有几个步骤（npm run demo 用 FLOORS.goldenSteps）；少了说明步骤目录没检出，不能打印「0/0 一致」 */
  minSteps?: number;
}

// 把 Writer 包成 runDemo 需要的流接口（实时模式只用到 write）
function asStream(w: Writer): NodeJS.WritableStream {
  return w as unknown as NodeJS.WritableStream;
}

function indentBlock(text: string, prefix: string): string {
  return text.replace(/\n$/, "").split("\n").map((l) => prefix + l).join("\n");
}

/** 一个步骤的结论：一行 ✓/✗，失败时附上 stderr 与 diff */
export function formatVerdict(v: StepVerdict, options: { color?: boolean; showStderr?: boolean } = {}): string {
  const p = paint(options.color ?? false);
  if (v.ok) return `${p.green("✓")} ${v.step}\n`;
  let text = `${p.red("✗")} ${v.step}（${v.reason ?? "失败"}）\n`;
  if ((options.showStderr ?? true) && v.result.stderr.trim() !== "") {
    text += `  demo 的 stderr（仅供排查，不参与比较）：\n${indentBlock(v.result.stderr, "  │ ")}\n`;
  }
  if (v.diff !== undefined) text += `${v.diff}\n`;
  // 有细节时空一行，免得和下一个步骤的结论挤在一起
  return text.includes("\n", text.indexOf("\n") + 1) ? `${text}\n` : text;
}

/** `npm run demo`：跑所有步骤，逐行 ✓/✗，有任何失败返回 1 */
export async function runAllDemos(options: GoldenOptions): Promise<number> {
  const steps = listSteps(options.root);
  if (steps.length === 0) {
    options.out.write("labs/mini-agent-harness/ 下没有找到任何步骤目录（stepNN-名字）。\n");
    return 1;
  }
  if (steps.length < (options.minSteps ?? 0)) {
    options.out.write(`labs/mini-agent-harness/ 下只找到 ${steps.length} 个步骤目录，期望至少 ${options.minSteps} 个（step01–step10）：步骤目录没检出？\n`);
    return 1;
  }
  const timeoutMs = options.timeoutMs ?? demoTimeoutMs();
  const verdicts = await mapInOrder(
    steps,
    options.concurrency ?? 2,
    async (step) => {
      const dir = stepDir(options.root, step);
      const runOpts = options.tsxCli === undefined ? { timeoutMs } : { timeoutMs, tsxCli: options.tsxCli };
      return judge(step, dir, await runDemo(dir, runOpts), timeoutMs, options.color);
    },
    (v) => options.out.write(formatVerdict(v, { color: options.color ?? false })),
  );
  const passed = verdicts.filter((v) => v.ok).length;
  options.out.write(`\n${passed}/${steps.length} 个步骤与 golden 一致\n`);
  return passed === steps.length ? 0 : 1;
}

/** `npm run demo -- 7`：实时输出（真实节奏），跑完再给结论 */
export async function runOneDemo(arg: string, options: GoldenOptions): Promise<number> {
  const step = resolveStep(arg, options.root);
  const dir = stepDir(options.root, step);
  const timeoutMs = options.timeoutMs ?? demoTimeoutMs();
  const p = paint(options.color ?? false);
  options.out.write(p.dim(`▶ ${step}：运行 demo（实时输出）`) + "\n");
  const live = { stdout: asStream(options.out), stderr: asStream(options.err ?? options.out) };
  const result = await runDemo(dir, options.tsxCli === undefined ? { timeoutMs, live } : { timeoutMs, live, tsxCli: options.tsxCli });
  if (result.stdout !== "" && !result.stdout.endsWith("\n")) options.out.write("\n");
  options.out.write(p.dim("─".repeat(40)) + "\n");
  const v = judge(step, dir, result, timeoutMs, options.color);
  // stderr 刚才已经实时显示过，不再重复
  options.out.write(formatVerdict(v, { color: options.color ?? false, showStderr: false }));
  return v.ok ? 0 : 1;
}

/** `npm run golden:update -- 7`：重跑 demo，把 stdout 写成新的 golden，并打印接受的变化 */
export async function updateGolden(arg: string, options: GoldenOptions): Promise<number> {
  const step = resolveStep(arg, options.root);
  const dir = stepDir(options.root, step);
  const timeoutMs = options.timeoutMs ?? demoTimeoutMs();
  const result = await runDemo(dir, options.tsxCli === undefined ? { timeoutMs } : { timeoutMs, tsxCli: options.tsxCli });
  const v = judge(step, dir, result, timeoutMs, options.color);
  // 运行本身失败时绝不写文件：坏输出一旦成了 golden，以后的比较就都没意义了
  const runFailed = result.spawnError !== undefined || result.timedOut || result.exitCode !== 0;
  if (runFailed) {
    options.out.write(`未更新 ${step}/${GOLDEN_FILE}：demo 没有正常结束。\n`);
    const failed: StepVerdict = { step, ok: false, reason: v.reason ?? "demo 运行失败", result };
    options.out.write(formatVerdict(failed, { color: options.color ?? false }));
    return 1;
  }
  const before = readGolden(dir);
  const after = crlfToLf(result.stdout);
  if (before === after) {
    options.out.write(`${step}/${GOLDEN_FILE} 没有变化。\n`);
    return 0;
  }
  fs.writeFileSync(path.join(dir, GOLDEN_FILE), after, "utf8");
  const label = before === undefined ? "（新建）" : "";
  options.out.write(`已更新 ${step}/${GOLDEN_FILE}${label}，接受了以下变化：\n`);
  const oldLabel = before === undefined ? "/dev/null" : `旧 ${GOLDEN_FILE}`;
  options.out.write(unifiedDiff(oldLabel, `新 ${GOLDEN_FILE}`, before ?? "", after, { color: options.color ?? false }) + "\n");
  return 0;
}
