// 根目录的 npm test（全部步骤、工具包、仓库脚本与参考答案一起跑），与钉住的基线 5be4bea 并排量。
// 目标（DESIGN §9）：墙钟时间与 CPU 时间都 ≤ 基线的 0.5 倍。只看比值：这些机器之间的绝对时间能差两倍以上，
// 一台机器上量的秒数拿到另一台上就不作数；同一次运行里交替量两边（基线、当前、基线、当前……），
// 机器忙闲的起伏两边一起吃。
//
// 基线是一个 5be4bea 的 git worktree，带自己的 npm ci，第一次运行时建在系统临时目录里（之后复用）；
// 每个步骤各自的 npm test 与它并排的那一项（step-ratio.ts）用的是同一个 worktree。
// 两边都直接跑各自装好的 vitest run（就是 npm test 那一条）。
// CPU 时间：用户态 + 内核态，含全部子孙进程——读本进程的 cutime/cstime（/proc/self/stat），
// 它累计的是已被等待过的子进程，以及它们各自等待过的后代；vitest、它的 worker、测试起的 CLI 都会等自己的子进程，
// 所以整棵树都算在里面（另用 subreaper 核对过：差约 1 s）。只在 Linux 上有。
import { spawn, spawnSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { BenchSkip, median, rootOf, type BenchOptions, type Figure } from "./lib.ts";
import { childrenCpuSeconds } from "./step-tests.ts";

export const title = "根目录的 npm test（与 5be4bea 并排）";

/** 钉住的基线：issue 46 开始时的 main */
export const BASELINE = "5be4bea";
const TARGET_RATIO = 0.5;
/** 交替量几轮（每轮基线、当前各一次） */
const PAIRS = 3;

export interface TimedRun {
  side: "baseline" | "head";
  seconds: number;
  cpu?: number;
}

/** 跑一次某个目录里的 npm test：墙钟秒数与整棵进程树的 CPU 秒数；没通过就抛错 */
export type RunOnce = (dir: string) => Promise<{ seconds: number; cpu?: number }>;

function git(cwd: string, args: string[]): { ok: boolean; out: string } {
  const r = spawnSync("git", args, { cwd, encoding: "utf8", windowsHide: true });
  return { ok: r.status === 0, out: `${r.stdout ?? ""}${r.stderr ?? ""}`.trim() };
}

/** 基线 worktree 放在哪：按仓库路径区分，两个克隆不会共用一份 */
export function baselineDir(root: string, commit = BASELINE): string {
  const key = crypto.createHash("sha1").update(path.resolve(root)).digest("hex").slice(0, 8);
  return path.join(os.tmpdir(), "mini-agent-harness-bench", `baseline-${commit}-${key}`);
}

const READY = ".bench-baseline-ready";

/** 准备好基线：git worktree（已经有、且在那个 commit 上就复用）+ npm ci。找不到那个 commit 时跳过这一项。 */
export function prepareBaseline(root: string, dir = baselineDir(root), commit = BASELINE, log: (line: string) => void = () => {}): string {
  const full = git(root, ["rev-parse", "--verify", "--quiet", `${commit}^{commit}`]);
  if (!full.ok) throw new BenchSkip(`（仓库里没有基线 ${commit}：浅克隆？git fetch --unshallow 之后再量）`);
  if (fs.existsSync(path.join(dir, READY)) && git(dir, ["rev-parse", "HEAD"]).out === full.out) return dir;
  if (fs.existsSync(dir)) {
    git(root, ["worktree", "remove", "--force", dir]);
    fs.rmSync(dir, { recursive: true, force: true });
  }
  git(root, ["worktree", "prune"]);
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  log(`建基线 worktree：${dir}（${commit}）`);
  const added = git(root, ["worktree", "add", "--detach", dir, full.out]);
  if (!added.ok) throw new Error(`git worktree add 失败：${added.out}`);
  log("在基线里 npm ci（只有第一次）…");
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  const ci = spawnSync(npm, ["ci", "--no-audit", "--no-fund"], { cwd: dir, encoding: "utf8", shell: process.platform === "win32", windowsHide: true });
  if (ci.status !== 0) throw new Error(`基线的 npm ci 失败：\n${`${ci.stdout}${ci.stderr}`.split("\n").slice(-15).join("\n")}`);
  fs.writeFileSync(path.join(dir, READY), `${full.out}\n`);
  return dir;
}

/** 交替跑：基线、当前、基线、当前……（先跑基线：第一次运行时的冷缓存算在基线头上，不利于当前这边） */
export async function alternate(baseline: string, head: string, pairs: number, runOnce: RunOnce): Promise<TimedRun[]> {
  const runs: TimedRun[] = [];
  for (let i = 0; i < pairs; i++) {
    for (const [side, dir] of [["baseline", baseline], ["head", head]] as const) {
      const { seconds, cpu } = await runOnce(dir);
      runs.push({ side, seconds, ...(cpu === undefined ? {} : { cpu }) });
    }
  }
  return runs;
}

export interface SideBySideOptions {
  commit?: string;
  /** 每个数字名字前面的说明，例如步骤名 */
  label?: string;
  /** 比值的目标（当前 ÷ 基线 ≤ 它） */
  target?: number;
  /** CPU 之比也对照目标（根目录那一项）；否则只报告 */
  cpuTarget?: boolean;
}

/** 两边各取中位数，给出比值；比值（当前 ÷ 基线）的墙钟一项对照目标，cpuTarget 时 CPU 一项也对照 */
export function sideBySideFigures(runs: readonly TimedRun[], options: SideBySideOptions = {}): Figure[] {
  const { commit = BASELINE, target = TARGET_RATIO, cpuTarget = true } = options;
  const prefix = options.label === undefined ? "" : `${options.label}：`;
  const of = (side: TimedRun["side"]) => runs.filter((r) => r.side === side);
  const base = of("baseline");
  const head = of("head");
  const n = Math.min(base.length, head.length);
  const wallBase = median(base.map((r) => r.seconds));
  const wallHead = median(head.map((r) => r.seconds));
  const wallRatio = wallHead / wallBase;
  const figures: Figure[] = [
    { name: `${prefix}${commit}（基线）：墙钟时间，${n} 次的中位数`, value: wallBase, unit: "s" },
    { name: `${prefix}当前：墙钟时间，${n} 次的中位数`, value: wallHead, unit: "s" },
    { name: `${prefix}墙钟之比：当前 ÷ ${commit}`, value: wallRatio, unit: "×", target: `≤ ${target} ×`, ok: wallRatio <= target },
  ];
  const cpuBase = base.map((r) => r.cpu);
  const cpuHead = head.map((r) => r.cpu);
  if ([...cpuBase, ...cpuHead].every((c) => c !== undefined)) {
    const b = median(cpuBase as number[]);
    const h = median(cpuHead as number[]);
    const ratio: Figure = { name: `${prefix}CPU 之比：当前 ÷ ${commit}`, value: h / b, unit: "×" };
    if (cpuTarget) Object.assign(ratio, { target: `≤ ${target} ×`, ok: h / b <= target });
    figures.push(
      { name: `${prefix}${commit}（基线）：CPU 时间（用户态 + 内核态，整棵进程树）`, value: b, unit: "s" },
      { name: `${prefix}当前：CPU 时间（用户态 + 内核态，整棵进程树）`, value: h, unit: "s" },
      ratio,
    );
  }
  return figures;
}

/** dir 或它上面最近的、装好了 vitest 的目录里的 vitest 命令行（步骤是工作区，vitest 装在仓库根） */
export function vitestBinFor(dir: string): string {
  for (let d = path.resolve(dir); ; d = path.dirname(d)) {
    const bin = path.join(d, "node_modules", "vitest", "vitest.mjs");
    if (fs.existsSync(bin)) return bin;
    if (path.dirname(d) === d) throw new Error(`${dir} 与它上面的目录里都没有装好的 vitest（先 npm ci）`);
  }
}

/** 在 dir 里跑一次 npm test（vitest run，用 dir 那棵树自己装的 vitest 与 dir 里的配置），量墙钟与 CPU */
export const runTestsIn: RunOnce = async (dir) => {
  const bin = vitestBinFor(dir);
  const cpuBefore = childrenCpuSeconds();
  const started = performance.now();
  const { code, output } = await new Promise<{ code: number | null; output: string }>((resolve) => {
    const child = spawn(process.execPath, [bin, "run"], { cwd: dir, env: { ...process.env, NO_COLOR: "1" }, stdio: ["ignore", "pipe", "pipe"], windowsHide: true });
    let text = "";
    child.stdout.setEncoding("utf8").on("data", (c: string) => (text += c));
    child.stderr.setEncoding("utf8").on("data", (c: string) => (text += c));
    child.on("error", (e) => resolve({ code: null, output: `无法启动：${e.message}` }));
    child.on("close", (c) => resolve({ code: c, output: text }));
  });
  const seconds = (performance.now() - started) / 1000;
  if (code !== 0) throw new Error(`${dir} 的 npm test 没有通过（退出码 ${code}）：\n${output.split("\n").slice(-30).join("\n")}`);
  const cpuAfter = childrenCpuSeconds();
  return { seconds, ...(cpuBefore === undefined || cpuAfter === undefined ? {} : { cpu: cpuAfter - cpuBefore }) };
};

export async function run(options: BenchOptions): Promise<Figure[]> {
  if (options.quick) throw new BenchSkip("（快速模式不跑：要把整个仓库的测试在两边各跑三遍）");
  const root = rootOf(options);
  const log = (line: string) => process.stdout.write(`  ${line}\n`);
  const baseline = prepareBaseline(root, baselineDir(root), BASELINE, log);
  const load = Number(os.loadavg()[0]?.toFixed(2) ?? 0);
  log(`交替跑 ${PAIRS} 轮：${BASELINE}、当前、${BASELINE}、当前……`);
  const runs = await alternate(baseline, root, PAIRS, async (dir) => {
    const r = await runTestsIn(dir);
    log(`${dir === root ? "当前" : BASELINE}：${r.seconds.toFixed(1)} s 墙钟${r.cpu === undefined ? "" : `，${r.cpu.toFixed(1)} s CPU`}`);
    return r;
  });
  return [{ name: "开始时的 1 分钟平均负载（空闲机器约为 0）", value: load, unit: "" }, ...sideBySideFigures(runs)];
}
