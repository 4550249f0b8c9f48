// SSE 解析吞吐：step08 自己写的 SSE 解析器 vs 一个 npm 上的 SSE 解析包，同一次运行里测，给出比值。
// 测量本身由 step08 提供（它的 bench/ 目录导出 benchSse({ quick })），这里只负责找到它、调用、列进表里。
import fs from "node:fs";
import path from "node:path";
import { BenchSkip, importFrom, stepByNumber, rootOf, type BenchOptions, type Figure } from "./lib.ts";

export const title = "SSE 吞吐";

interface SseResult {
  oursMBps: number;
  npmMBps: number;
  ratio: number;
}
type BenchSse = (options: { quick: boolean }) => Promise<SseResult> | SseResult;

const EXPORTS_BENCH_SSE = /export\s+(?:async\s+)?function\s*\*?\s*benchSse\b|export\s+(?:const|let|var)\s+benchSse\b|export\s*\{[^}]*\bbenchSse\b/;

/** step08 的 bench/ 里导出 benchSse 的文件：先看 index.ts、sse.ts，再看其余 .ts；只导入源码里确实导出了它的文件 */
export function findBenchSseFile(benchDir: string): string | undefined {
  if (!fs.existsSync(benchDir)) return undefined;
  const names = fs.readdirSync(benchDir).filter((n) => /\.(?:ts|mts|js|mjs)$/.test(n) && !/\.(?:test|spec)\./.test(n));
  const preferred = ["index.ts", "sse.ts", "bench-sse.ts"];
  names.sort((a, b) => {
    const ia = preferred.indexOf(a);
    const ib = preferred.indexOf(b);
    return (ia < 0 ? preferred.length : ia) - (ib < 0 ? preferred.length : ib) || a.localeCompare(b);
  });
  return names.find((n) => EXPORTS_BENCH_SSE.test(fs.readFileSync(path.join(benchDir, n), "utf8")));
}

export async function run(options: BenchOptions): Promise<Figure[]> {
  let step08: string;
  try {
    step08 = stepByNumber(rootOf(options), 8);
  } catch {
    throw new BenchSkip("（step08 尚未提供）");
  }
  const file = findBenchSseFile(path.join(step08, "bench"));
  if (file === undefined) throw new BenchSkip("（step08 尚未提供）");
  const mod = await importFrom<{ benchSse?: BenchSse }>(step08, `bench/${file}`);
  if (typeof mod.benchSse !== "function") throw new BenchSkip("（step08 尚未提供）");
  const r = await mod.benchSse({ quick: options.quick });
  for (const key of ["oursMBps", "npmMBps", "ratio"] as const) {
    if (typeof r?.[key] !== "number" || !Number.isFinite(r[key])) throw new Error(`benchSse() 返回的 ${key} 不是有限数字：${String(r?.[key])}`);
  }
  return [
    { name: "我们的 SSE 解析器（step08）", value: r.oursMBps, unit: "MB/s" },
    { name: "npm 包的 SSE 解析器", value: r.npmMBps, unit: "MB/s" },
    { name: "我们 / npm 包（吞吐之比）", value: r.ratio, unit: "×" },
  ];
}
