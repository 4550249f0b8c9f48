// SSE 解析吞吐：step08 自己写的 SSE 解析器 vs 一个 npm 上的 SSE 解析包，同一次运行里测，给出比值。
// 测量本身由 step08 提供（它的 bench/sse.ts 导出 benchSse({ quick })），这里只负责导入、调用、列进表里。
// 目标只有一个：手写解析器 ≥ 50 MB/s（DESIGN §9）。模型每秒只吐几 KB，这已经快了上万倍；
// 与 npm 包的比值只是列出来给人看，不是目标——手写版为了好读，不和它比快。
import { BenchSkip, importFrom, stepByNumber, rootOf, type BenchOptions, type Figure } from "./lib.ts";

export const title = "SSE 吞吐";

/** 手写解析器吞吐的下限（MB/s）。 */
export const MIN_MBPS = 50;

interface SseResult {
  oursMBps: number;
  npmMBps: number;
  ratio: number;
}
type BenchSse = (options: { quick: boolean }) => Promise<SseResult> | SseResult;

export async function run(options: BenchOptions): Promise<Figure[]> {
  let step08: string;
  try {
    step08 = stepByNumber(rootOf(options), 8);
  } catch {
    throw new BenchSkip("（step08 尚未提供）");
  }
  // step08 的 bench/sse.ts 导出 benchSse：直接导入它（没有这个文件时 importFrom 会说明并跳过）
  const mod = await importFrom<{ benchSse?: BenchSse }>(step08, "bench/sse.ts");
  if (typeof mod.benchSse !== "function") throw new BenchSkip("（step08 尚未提供）");
  const r = await mod.benchSse({ quick: options.quick });
  for (const key of ["oursMBps", "npmMBps", "ratio"] as const) {
    if (typeof r?.[key] !== "number" || !Number.isFinite(r[key])) throw new Error(`benchSse() 返回的 ${key} 不是有限数字：${String(r?.[key])}`);
  }
  return [
    // 快速模式只测个大概，不评判目标（和会话那一项一样）
    { name: "我们的 SSE 解析器（step08）", value: r.oursMBps, unit: "MB/s", ...(options.quick ? {} : { target: `≥ ${MIN_MBPS} MB/s`, ok: r.oursMBps >= MIN_MBPS }) },
    { name: "npm 包的 SSE 解析器", value: r.npmMBps, unit: "MB/s" },
    { name: "我们 / npm 包（吞吐之比）", value: r.ratio, unit: "×" },
  ];
}
