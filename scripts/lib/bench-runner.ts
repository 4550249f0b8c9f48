import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import * as abortLatency from "../bench/abort-latency.ts";
import * as abortListeners from "../bench/abort-listeners.ts";
import * as bookBuild from "../bench/book-build.ts";
import { BenchSkip, type BenchOptions, type Figure } from "../bench/lib.ts";
import * as rootTests from "../bench/root-tests.ts";
import * as sessions from "../bench/sessions.ts";
import * as sse from "../bench/sse.ts";
import * as stepRatio from "../bench/step-ratio.ts";
import * as stepTests from "../bench/step-tests.ts";
import * as watchLatency from "../bench/watch-latency.ts";
import { paint } from "./color.ts";
import type { Writer } from "./golden-runner.ts";
import { toPosix } from "./paths.ts";

export interface BenchModule {
  /** JSON 里的分组名，也是 scripts/bench/ 下的文件名 */
  id: string;
  title: string;
  run(options: BenchOptions): Promise<Figure[]>;
}

/** §9 的全部数字，按这个顺序测（一次只测一项，互不干扰） */
export const BENCHES: BenchModule[] = [
  { id: "sessions", ...sessions },
  { id: "abort-latency", ...abortLatency },
  { id: "abort-listeners", ...abortListeners },
  { id: "sse", ...sse },
  { id: "step-tests", ...stepTests },
  { id: "root-tests", ...rootTests },
  { id: "step-ratio", ...stepRatio },
  { id: "book-build", ...bookBuild },
  { id: "watch-latency", ...watchLatency },
];

export interface BenchFigure extends Figure {
  group: string;
}

export interface BenchResults {
  schema: 1;
  createdAt: string;
  commit: string | null;
  /** 工作区有没有未提交的改动（有的话 commit 不能完全代表被测的代码） */
  dirty: boolean | null;
  quick: boolean;
  node: string;
  platform: string;
  arch: string;
  cpus: number;
  figures: BenchFigure[];
  skipped: Array<{ group: string; title: string; reason: string }>;
  errors: Array<{ group: string; title: string; message: string }>;
}

export interface RunBenchOptions {
  root: string;
  quick: boolean;
  out: Writer;
  /** JSON 写到哪里，默认 <root>/bench-results/latest.json */
  jsonFile?: string;
  /** 与之前某次的 JSON 对比 */
  compareWith?: BenchResults;
  color?: boolean;
  benches?: BenchModule[];
}

function git(root: string, args: string[]): string | null {
  const r = spawnSync("git", args, { cwd: root, encoding: "utf8", windowsHide: true });
  return r.status === 0 ? r.stdout.trim() : null;
}

// 终端里汉字与全角标点占两格，对齐时按显示宽度算
function displayWidth(text: string): number {
  let w = 0;
  for (const ch of text.replace(/\u001b\[[0-9;]*m/g, "")) {
    const c = ch.codePointAt(0) ?? 0;
    const wide =
      (c >= 0x1100 && c <= 0x115f) ||
      (c >= 0x2e80 && c <= 0xa4cf) ||
      (c >= 0xac00 && c <= 0xd7a3) ||
      (c >= 0xf900 && c <= 0xfaff) ||
      (c >= 0xfe30 && c <= 0xfe4f) ||
      (c >= 0xff00 && c <= 0xff60) ||
      (c >= 0xffe0 && c <= 0xffe6);
    w += wide ? 2 : 1;
  }
  return w;
}

function pad(text: string, width: number, right = false): string {
  const fill = " ".repeat(Math.max(0, width - displayWidth(text)));
  return right ? fill + text : text + fill;
}

export function formatValue(value: number, unit: string): string {
  const abs = Math.abs(value);
  const digits = Number.isInteger(value) ? 0 : abs >= 100 ? 0 : abs >= 10 ? 1 : abs >= 1 ? 2 : 3;
  const num = value.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
  return unit === "×" ? `${num} ×` : `${num} ${unit}`;
}

function change(now: number, before: number): string {
  if (before === 0) return now === 0 ? "±0%" : "—";
  const pct = ((now - before) / Math.abs(before)) * 100;
  if (pct === 0) return "±0%";
  return `${pct >= 0 ? "+" : ""}${pct.toFixed(Math.abs(pct) < 10 ? 1 : 0)}%`;
}

/** 把结果排成一张表：指标 | 数值 | 目标 | 结论 [| 对比] */
export function formatTable(results: BenchResults, options: { color?: boolean; compareWith?: BenchResults; benches?: BenchModule[] } = {}): string {
  const p = paint(options.color ?? false);
  const benches = options.benches ?? BENCHES;
  const previous = new Map((options.compareWith?.figures ?? []).map((f) => [`${f.group}\u0000${f.name}`, f]));
  const header = ["指标", "数值", "目标", "结论", ...(options.compareWith ? ["对比上次"] : [])];
  // section：分组标题；span：整行一段文字（跳过的原因、出错信息），都不参与列宽计算
  type Row = { cells: string[]; section?: boolean; span?: boolean };
  const rows: Row[] = [];
  for (const bench of benches) {
    rows.push({ cells: [`【${bench.title}】`], section: true });
    for (const f of results.figures.filter((x) => x.group === bench.id)) {
      const verdict = f.ok === undefined ? "" : f.ok ? p.green("✓ 达到") : p.red("✗ 未达到");
      const cells = [f.name, formatValue(f.value, f.unit), f.target ?? "", verdict];
      if (options.compareWith) {
        const old = previous.get(`${f.group}\u0000${f.name}`);
        cells.push(old === undefined ? "（无）" : `${formatValue(old.value, old.unit)}（${change(f.value, old.value)}）`);
      }
      rows.push({ cells });
    }
    for (const s of results.skipped.filter((x) => x.group === bench.id)) rows.push({ cells: [`${bench.title}  ${s.reason}`], span: true });
    for (const e of results.errors.filter((x) => x.group === bench.id)) rows.push({ cells: [`${bench.title}  ${p.red(`✗ 出错：${e.message}`)}`], span: true });
  }
  const widths = header.map((h, i) => Math.max(displayWidth(h), ...rows.filter((r) => !r.section && !r.span).map((r) => displayWidth(r.cells[i] ?? ""))));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => pad(c, widths[i] ?? 0, i === 1))
      .join("  ")
      .trimEnd();
  const out = [p.bold(line(header)), line(widths.map((w) => "─".repeat(w)))];
  for (const r of rows) out.push(r.section ? p.bold(r.cells[0] ?? "") : r.span ? (r.cells[0] ?? "") : line(r.cells));
  return out.join("\n") + "\n";
}

/** `npm run bench`：逐项测量，打印一张表，写 JSON。有任何一项出错返回 1；没达到目标只标 ✗，不影响退出码。 */
export async function runBench(options: RunBenchOptions): Promise<{ code: number; results: BenchResults; jsonFile: string }> {
  const benches = options.benches ?? BENCHES;
  const status = git(options.root, ["status", "--porcelain"]);
  const results: BenchResults = {
    schema: 1,
    createdAt: new Date().toISOString(),
    commit: git(options.root, ["rev-parse", "HEAD"]),
    dirty: status === null ? null : status !== "",
    quick: options.quick,
    node: process.version,
    platform: process.platform,
    arch: process.arch,
    cpus: typeof os.availableParallelism === "function" ? os.availableParallelism() : os.cpus().length,
    figures: [],
    skipped: [],
    errors: [],
  };
  const p = paint(options.color ?? false);
  const commit = results.commit === null ? "（不在 git 仓库里）" : `${results.commit.slice(0, 7)}${results.dirty ? "（有未提交的改动）" : ""}`;
  options.out.write(
    p.bold(`npm run bench${options.quick ? " -- --quick（快速模式：数量更少，不看目标）" : ""}`) +
      `\nNode ${results.node} · ${results.platform} ${results.arch} · ${results.cpus} 核 · commit ${commit}\n\n`,
  );

  for (const bench of benches) {
    options.out.write(p.dim(`测量：${bench.title}…`) + "\n");
    try {
      const figures = await bench.run({ quick: options.quick, root: options.root });
      for (const f of figures) results.figures.push({ group: bench.id, ...f });
    } catch (error) {
      if (error instanceof BenchSkip) results.skipped.push({ group: bench.id, title: bench.title, reason: error.message });
      else results.errors.push({ group: bench.id, title: bench.title, message: error instanceof Error ? error.message : String(error) });
    }
  }

  options.out.write("\n" + formatTable(results, { color: options.color ?? false, benches, ...(options.compareWith ? { compareWith: options.compareWith } : {}) }));

  const jsonFile = options.jsonFile ?? path.join(options.root, "bench-results", "latest.json");
  fs.mkdirSync(path.dirname(jsonFile), { recursive: true });
  fs.writeFileSync(jsonFile, JSON.stringify(results, null, 2) + "\n", "utf8");
  const shown = path.relative(options.root, jsonFile);
  const targets = results.figures.filter((f) => f.ok !== undefined);
  options.out.write(
    `\n目标：${targets.filter((f) => f.ok).length}/${targets.length} 项达到` +
      (results.errors.length > 0 ? `；${results.errors.length} 项出错` : "") +
      `\n结果已写入 ${shown.startsWith("..") || path.isAbsolute(shown) ? jsonFile : toPosix(shown)}\n`,
  );
  return { code: results.errors.length > 0 ? 1 : 0, results, jsonFile };
}
