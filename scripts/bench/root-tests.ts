// 根目录的 npm test（全部步骤、工具包、仓库脚本与参考答案一起跑），与钉住的基线 617f0ac 并排量。
// 目标（DESIGN §9）：墙钟时间 ≤ 基线的 0.6 倍。只看比值：这些机器之间的绝对时间能差两倍以上，
// 一台机器上量的秒数拿到另一台上就不作数；同一次运行里交替量两边（基线、当前、基线、当前……），
// 机器忙闲的起伏两边一起吃。
//
// 基线是一个 617f0ac 的 git worktree，带自己的 npm ci，第一次运行时建在系统临时目录里（之后复用）。
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

export const title = "根目录的 npm test（与 617f0ac 并排）";

/** 钉住的基线：issue 33 开始时的 main */
export const BASELINE = "617f0ac";
const TARGET_RATIO = 0.6;
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

/** 两边各取中位数，给出比值；比值（当前 ÷ 基线）的墙钟一项对照目标 */
export function sideBySideFigures(runs: readonly TimedRun[], commit = BASELINE): Figure[] {
  const of = (side: TimedRun["side"]) => runs.filter((r) => r.side === side);
  const base = of("baseline");
  const head = of("head");
  const n = Math.min(base.length, head.length);
  const wallBase = median(base.map((r) => r.seconds));
  const wallHead = median(head.map((r) => r.seconds));
  const wallRatio = wallHead / wallBase;
  const figures: Figure[] = [
    { name: `${commit}（基线）：墙钟时间，${n} 次的中位数`, value: wallBase, unit: "s" },
    { name: `当前：墙钟时间，${n} 次的中位数`, value: wallHead, unit: "s" },
    { name: `墙钟之比：当前 ÷ ${commit}`, value: wallRatio, unit: "×", target: `≤ ${TARGET_RATIO} ×`, ok: wallRatio <= TARGET_RATIO },
  ];
  const cpuBase = base.map((r) => r.cpu);
  const cpuHead = head.map((r) => r.cpu);
  if ([...cpuBase, ...cpuHead].every((c) => c !== undefined)) {
    const b = median(cpuBase as number[]);
    const h = median(cpuHead as number[]);
    figures.push(
      { name: `${commit}（基线）：CPU 时间（用户态 + 内核态，整棵进程树）`, value: b, unit: "s" },
      { name: "当前：CPU 时间（用户态 + 内核态，整棵进程树）", value: h, unit: "s" },
      { name: `CPU 之比：当前 ÷ ${commit}`, value: h / b, unit: "×" },
    );
  }
  return figures;
}

function vitestBinIn(dir: string): string {
  const bin = path.join(dir, "node_modules", "vitest", "vitest.mjs");
  if (!fs.existsSync(bin)) throw new Error(`${dir} 里没有装好的 vitest（先 npm ci）`);
  return bin;
}

/** 在 dir 里跑一次 npm test（vitest run），量墙钟与 CPU */
export const runRootTests: RunOnce = async (dir) => {
  const bin = vitestBinIn(dir);
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
    const r = await runRootTests(dir);
    log(`${dir === root ? "当前" : BASELINE}：${r.seconds.toFixed(1)} s 墙钟${r.cpu === undefined ? "" : `，${r.cpu.toFixed(1)} s CPU`}`);
    return r;
  });
  return [{ name: "开始时的 1 分钟平均负载（空闲机器约为 0）", value: load, unit: "" }, ...sideBySideFigures(runs)];
}
