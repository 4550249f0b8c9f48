// npm run book:build：冷构建（先清掉缓存，像刚克隆下来：要开浏览器画图、重跑 step06–09 的 demo、高亮所有代码）
// 与紧接着的热构建（内容没变的图、代码高亮、会话页都取缓存）。
// 机器之间差两倍以上，又常与别人共用，所以与钉住的 617f0ac 在同一次运行里并排量、交替着量（基准 新 基准 新），
// 给出两边的墙钟时间、CPU 时间（含浏览器与 demo 子进程）和「新 ÷ 617f0ac」的比值：DESIGN §9 要冷构建 ≤ 0.5×。
// 617f0ac 是 bench-results/ 下的一个 git 工作树（第一次用时建好并装上它自己的依赖，之后复用）；
// 两边用同一个浏览器（617f0ac 只认 CHROMIUM_PATH 或 /usr/bin/chromium，这里把找到的那个告诉它）。
// 轮数：BENCH_BOOK_ROUNDS（默认 2，一轮是两边各一次冷构建加一次热构建，共 4 次构建）。
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { findBrowser } from "../../book/scripts/lib/browser.ts";
import { bookEnv } from "../lib/book-env.ts";
import { ensureBookInstalled } from "../lib/book-install.ts";
import { resolveTsxCli } from "../lib/tsx-cli.ts";
import { BenchSkip, median, rootOf, type BenchOptions, type Figure } from "./lib.ts";
import { childrenCpuSeconds, runNode } from "./step-tests.ts";

export const title = "书站构建（npm run book:build），与 617f0ac 并排";

export const BASE_COMMIT = "617f0ac";
const TARGET_RATIO = 0.5;
const npm = process.platform === "win32" ? "npm.cmd" : "npm";

function note(line: string): void {
  process.stderr.write(`  ${line}\n`);
}

/** 轮数：1–5 的整数，说错时说出给的值 */
export function benchRounds(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.BENCH_BOOK_ROUNDS;
  if (raw === undefined || raw === "") return 2;
  if (!/^[1-5]$/.test(raw)) throw new Error(`BENCH_BOOK_ROUNDS 的值是「${raw}」，要 1–5 的整数`);
  return Number(raw);
}

/** 617f0ac 的工作树：没有就建，没装依赖就装（根目录与 book/ 各一次 npm ci，按它自己的锁文件） */
export function prepareBase(root: string): string {
  const dir = path.join(root, "bench-results", `book-base-${BASE_COMMIT}`);
  if (!fs.existsSync(path.join(dir, "package.json"))) {
    note(`建 ${BASE_COMMIT} 的工作树：${path.relative(root, dir)}（只建这一次）`);
    spawnSync("git", ["-C", root, "worktree", "prune"], { encoding: "utf8" });
    const r = spawnSync("git", ["-C", root, "worktree", "add", "--detach", dir, BASE_COMMIT], { encoding: "utf8" });
    if (r.status !== 0) throw new BenchSkip(`（没法建 ${BASE_COMMIT} 的工作树，比不了：${(r.stderr || r.error?.message || "").trim().split("\n")[0]}）`);
  }
  for (const [where, marker] of [[dir, "tsx"], [path.join(dir, "book"), "vitepress"]] as const) {
    if (fs.existsSync(path.join(where, "node_modules", marker))) continue;
    note(`给 ${BASE_COMMIT} 装依赖：npm ci（${path.relative(root, where)}，只装这一次）`);
    const r = spawnSync(npm, ["ci", "--no-audit", "--no-fund", "--loglevel=error"], { cwd: where, stdio: ["ignore", "inherit", "inherit"], shell: process.platform === "win32" });
    if (r.status !== 0) throw new Error(`给 ${BASE_COMMIT} 装依赖失败（${where}，npm ci 退出码 ${r.status}）`);
  }
  return dir;
}

interface Side {
  label: string;
  root: string;
  tsx: string;
  env: NodeJS.ProcessEnv;
}

function clearCaches(bookDir: string): void {
  for (const d of [".cache", path.join(".vitepress", "cache"), ".pi-src"]) fs.rmSync(path.join(bookDir, d), { recursive: true, force: true, maxRetries: 10 });
}

async function buildOnce(side: Side): Promise<{ wall: number; cpu?: number }> {
  const bookDir = path.join(side.root, "book");
  const cpuBefore = childrenCpuSeconds();
  const started = performance.now();
  const { code, output } = await runNode([side.tsx, path.join(bookDir, "scripts", "build.ts")], bookDir, side.env);
  const wall = (performance.now() - started) / 1000;
  if (code !== 0) throw new Error(`${side.label} 的书站构建失败（退出码 ${code}）：\n${output.split("\n").slice(-20).join("\n")}`);
  const cpuAfter = childrenCpuSeconds();
  return cpuBefore === undefined || cpuAfter === undefined ? { wall } : { wall, cpu: cpuAfter - cpuBefore };
}

export async function run(options: BenchOptions): Promise<Figure[]> {
  if (options.quick) throw new BenchSkip("（快速模式不跑：要完整构建书站好几次）");
  const rounds = benchRounds();
  const root = rootOf(options);
  const failed = await ensureBookInstalled(path.join(root, "book"), note);
  if (failed !== undefined) throw new BenchSkip(`（book/ 的依赖没装好：${failed}）`);
  const browser = findBrowser();
  if ("missing" in browser) throw new BenchSkip(`（${browser.missing}：${BASE_COMMIT} 的构建要用浏览器画图，比不了）`);
  const baseRoot = prepareBase(root);
  // 与 npm run book:build 同样的环境（scripts/lib/book-env.ts）；两边用同一个浏览器
  const env = { NODE_OPTIONS: bookEnv().NODE_OPTIONS, CHROMIUM_PATH: browser.path };
  const sides: Side[] = [
    { label: BASE_COMMIT, root: baseRoot, tsx: path.join(baseRoot, "node_modules", "tsx", "dist", "cli.mjs"), env },
    { label: "现在", root, tsx: resolveTsxCli(), env },
  ];
  const load = Number(os.loadavg()[0]?.toFixed(2) ?? 0);
  const runs = new Map<string, Array<{ wall: number; cpu?: number }>>();
  for (let round = 1; round <= rounds; round++) {
    for (const side of sides) {
      for (const kind of ["冷", "热"]) {
        note(`第 ${round}/${rounds} 轮：${side.label} ${kind}构建…`);
        if (kind === "冷") clearCaches(path.join(side.root, "book"));
        const r = await buildOnce(side);
        note(`  ${r.wall.toFixed(1)} s 墙钟${r.cpu === undefined ? "" : `，${r.cpu.toFixed(1)} s CPU`}`);
        const key = `${side.label}\0${kind}`;
        runs.set(key, [...(runs.get(key) ?? []), r]);
      }
    }
  }
  const med = (label: string, kind: string, what: "wall" | "cpu"): number | undefined => {
    const values = (runs.get(`${label}\0${kind}`) ?? []).map((r) => r[what]).filter((v): v is number => v !== undefined);
    return values.length === 0 ? undefined : median(values);
  };
  const figures: Figure[] = [
    { name: "开始时的 1 分钟平均负载（空闲机器约为 0）", value: load, unit: "" },
    { name: `轮数（每轮：${BASE_COMMIT} 冷、热，现在 冷、热）`, value: rounds, unit: "" },
  ];
  for (const kind of ["冷", "热"]) {
    for (const what of ["wall", "cpu"] as const) {
      const base = med(BASE_COMMIT, kind, what);
      const now = med("现在", kind, what);
      if (base === undefined || now === undefined) continue;
      const label = `${kind}构建${kind === "冷" ? "（清掉缓存，像刚克隆）" : "（缓存都在）"}：${what === "wall" ? "墙钟时间" : "CPU 时间（用户态 + 内核态，含浏览器与 demo）"}`;
      figures.push({ name: `${label}，${BASE_COMMIT}`, value: base, unit: "s" });
      figures.push({ name: `${label}，现在`, value: now, unit: "s" });
      const ratio = now / base;
      figures.push(
        kind === "冷"
          ? { name: `${label}，现在 ÷ ${BASE_COMMIT}`, value: ratio, unit: "×", target: `≤ ${TARGET_RATIO}×`, ok: ratio <= TARGET_RATIO }
          : { name: `${label}，现在 ÷ ${BASE_COMMIT}`, value: ratio, unit: "×" },
      );
    }
  }
  return figures;
}
