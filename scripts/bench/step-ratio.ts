// 步骤 06–09 各自的 npm test（学习者改一行、跑一遍测试的那个循环），每一步与钉住的基线 5be4bea 里同一步的副本并排量。
// 目标（DESIGN §9）：每一步的墙钟时间 ≤ 基线那一步的 0.5 倍；CPU 之比只报告。
// 与根目录那一项（root-tests.ts）同一套办法、同一个基线 worktree：同一次运行里一步一步地交替量
// （基线、当前、基线、当前……，各 3 次取中位数），机器忙闲的起伏两边一起吃。
// 两边各用自己那棵树装的 vitest 和那一步自己的 vitest.config.ts（就是在步骤目录里敲 npm test 的那一条）。
import os from "node:os";
import path from "node:path";
import { listSteps, stepDir, stepNumber } from "../lib/steps.ts";
import { BenchSkip, rootOf, type BenchOptions, type Figure } from "./lib.ts";
import { alternate, BASELINE, baselineDir, prepareBaseline, runTestsIn, sideBySideFigures, type RunOnce } from "./root-tests.ts";

export const title = "步骤 06–09 各自的 npm test（与 5be4bea 里同一步并排），step10 与 5be4bea 的 step09 并排";

/** 比哪几步：行为守卫最多、测试最重的四步 */
export const STEPS = [6, 7, 8, 9];
const TARGET_RATIO = 0.5;
/** 每一步交替量几轮（每轮基线、当前各一次） */
const PAIRS = 3;
/** 基线之后才有的一步，与基线里的哪一步比（step10 对 step09：issue 50 的目标） */
export const NEW_STEP: readonly [number, number] = [10, 9];

export interface StepPair {
  step: string;
  baseline: string;
  head: string;
}

/** 按编号把两棵树里的步骤目录对上；哪一边没有那一步，就说出来，不比 */
export function stepPairs(root: string, baselineRoot: string, numbers: readonly number[] = STEPS, newStep: readonly [number, number] | undefined = NEW_STEP): { pairs: StepPair[]; missing: string[] } {
  const find = (tree: string, n: number) => listSteps(tree).find((s) => stepNumber(s) === n);
  const pairs: StepPair[] = [];
  const missing: string[] = [];
  for (const n of numbers) {
    const head = find(root, n);
    const base = find(baselineRoot, n);
    if (head === undefined || base === undefined) missing.push(`step${String(n).padStart(2, "0")}（${head === undefined ? "当前" : BASELINE}没有这一步）`);
    else pairs.push({ step: head, baseline: stepDir(baselineRoot, base), head: stepDir(root, head) });
  }
  // 基线里还没有的新一步，跟基线里它的前一步比：step10 的 npm test ≤ 5be4bea 里 step09 的 0.5 倍（issue 50）
  if (newStep === undefined) return { pairs, missing };
  const [added, against] = newStep;
  const fresh = find(root, added);
  const before = find(baselineRoot, against);
  if (fresh !== undefined && find(baselineRoot, added) === undefined && before !== undefined) {
    pairs.push({ step: `${fresh}（对 ${BASELINE} 的 ${before}）`, baseline: stepDir(baselineRoot, before), head: stepDir(root, fresh) });
  }
  return { pairs, missing };
}

/** 一步一步地交替量，每一步给出两边的中位数与比值（墙钟对照目标，CPU 只报告） */
export async function compareSteps(pairs: readonly StepPair[], rounds: number, runOnce: RunOnce): Promise<Figure[]> {
  const figures: Figure[] = [];
  for (const pair of pairs) {
    const runs = await alternate(pair.baseline, pair.head, rounds, runOnce);
    figures.push(...sideBySideFigures(runs, { label: pair.step, target: TARGET_RATIO, cpuTarget: false }));
  }
  return figures;
}

export async function run(options: BenchOptions): Promise<Figure[]> {
  if (options.quick) throw new BenchSkip("（快速模式不跑：要把四个步骤的测试在两边各跑三遍）");
  const root = rootOf(options);
  const log = (line: string) => process.stdout.write(`  ${line}\n`);
  const baseline = prepareBaseline(root, baselineDir(root), BASELINE, log);
  const { pairs, missing } = stepPairs(root, baseline);
  if (pairs.length === 0) throw new BenchSkip(`（两边对不上任何一步：${missing.join("、")}）`);
  for (const m of missing) log(`不比 ${m}`);
  const load = Number(os.loadavg()[0]?.toFixed(2) ?? 0);
  log(`每一步交替跑 ${PAIRS} 轮：${BASELINE}、当前、${BASELINE}、当前……`);
  const figures = await compareSteps(pairs, PAIRS, async (dir) => {
    const r = await runTestsIn(dir);
    log(`${path.basename(dir)} ${dir.startsWith(baseline) ? BASELINE : "当前"}：${r.seconds.toFixed(1)} s 墙钟${r.cpu === undefined ? "" : `，${r.cpu.toFixed(1)} s CPU`}`);
    return r;
  });
  return [{ name: "开始时的 1 分钟平均负载（空闲机器约为 0）", value: load, unit: "" }, ...figures];
}
