// 会话文件：写 N 条（Session.append，每条同步追加一行），再整份恢复（Session.open(...).messages()）。
// §9：100 000 条的会话恢复要远少于 1 秒。
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { gc, importFrom, MB, newestStepWith, rootOf, type BenchOptions, type Figure } from "./lib.ts";

export const title = "会话";

// 只声明这里用到的那一小部分（步骤里的 Session 类型不在根 tsconfig 的范围内）
interface SessionLike {
  append(message: unknown): void;
  messages(): unknown[];
}
interface SessionModule {
  Session: { create(file: string): SessionLike; open(file: string, warnings?: string[]): SessionLike };
}

// 一问一答交替，内容接近 demo 里真实的消息
function message(i: number): unknown {
  return i % 2 === 0
    ? { role: "user", content: `第 ${i} 条：帮我算 17*38` }
    : { role: "assistant", content: [{ type: "text", text: "结果是 646。这是一段用来撑大会话文件的中文回复。" }], stopReason: "stop" };
}

export async function run(options: BenchOptions): Promise<Figure[]> {
  const dir = newestStepWith(rootOf(options), "src/session.ts");
  const { Session } = await importFrom<SessionModule>(dir, "src/session.ts");
  const n = options.quick ? 2_000 : 100_000;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "mah-bench-session-"));
  const file = path.join(tmp, "bench.jsonl");
  try {
    // ── 写入：每 1000 条采样一次内存，取峰值（相对写入前的基线） ──
    gc();
    const base = process.memoryUsage();
    let peakRss = base.rss;
    let peakHeap = base.heapUsed;
    const sample = (): void => {
      const m = process.memoryUsage();
      peakRss = Math.max(peakRss, m.rss);
      peakHeap = Math.max(peakHeap, m.heapUsed);
    };
    const t0 = performance.now();
    const session = Session.create(file);
    for (let i = 0; i < n; i++) {
      session.append(message(i));
      if (i % 1000 === 0) sample();
    }
    const writeMs = performance.now() - t0;
    sample();
    const size = fs.statSync(file).size;

    // ── 恢复：读整个文件、逐行解析、沿 parentId 走回去 ──
    gc();
    const before = process.memoryUsage().heapUsed;
    const t1 = performance.now();
    const messages = Session.open(file).messages();
    const resumeMs = performance.now() - t1;
    // 不做 GC 的读数含解析时的临时对象，接近恢复时的峰值；GC 之后是恢复结果本身占的内存
    const heapJustAfter = process.memoryUsage().heapUsed - before;
    gc();
    const heapRetained = process.memoryUsage().heapUsed - before;
    if (messages.length !== n) throw new Error(`恢复出 ${messages.length} 条消息，应为 ${n} 条`);

    const label = `${n.toLocaleString("en-US")} 条`;
    const resume: Figure = { name: `会话恢复 ${label}（open + messages）`, value: resumeMs, unit: "ms" };
    // 目标只对完整模式（10 万条）有意义
    if (!options.quick) Object.assign(resume, { target: "< 1000 ms", ok: resumeMs < 1000 });
    return [
      { name: `会话写入 ${label}（Session.append）`, value: writeMs, unit: "ms" },
      { name: "写入时 RSS 峰值（比写入前多）", value: (peakRss - base.rss) / MB, unit: "MB" },
      { name: "写入时堆峰值（比写入前多）", value: (peakHeap - base.heapUsed) / MB, unit: "MB" },
      { name: "会话文件大小", value: size / MB, unit: "MB" },
      resume,
      { name: "恢复刚结束时的堆（含解析的临时对象）", value: heapJustAfter / MB, unit: "MB" },
      { name: "恢复结果常驻的堆（GC 之后）", value: heapRetained / MB, unit: "MB" },
    ];
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true, maxRetries: 10 });
  }
}
