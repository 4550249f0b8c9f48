/**
 * 基准：同一段 SSE 文本，分别交给我们手写的解析器（src/sse.ts）与 eventsource-parser@3，量吞吐（MB/s）。
 * 两边都从字节算起（都包含 UTF-8 解码），并先核对两边解析出的事件完全一致。
 * 目标只有一个：手写版 ≥ 50 MB/s（模型每秒只吐几 KB）。与 eventsource-parser 的比值只报告，不追求——
 * 手写版写成一遍逐行处理的样子是为了好读，不为比它快。
 *
 * 运行：npm run bench（在本步骤目录）。仓库的总基准脚本可以 import { benchSse } 调用它。
 * eventsource-parser 只是开发依赖：运行时的 Harness 不用它——手写解析器本身就是这一章的内容。
 */

import { pathToFileURL } from "node:url";

import { createParser } from "eventsource-parser";

import { SseParser } from "../src/sse.js";

export interface SseBenchRow {
  /** 每次喂给解析器多少字节（模拟网络分块）。 */
  chunkBytes: number;
  oursMBps: number;
  npmMBps: number;
  /** ours / npm：大于 1 表示手写的更快。 */
  ratio: number;
  events: number;
}

export interface SseBenchResult extends SseBenchRow {
  inputMB: number;
  rounds: number;
  /** 每种分块大小各一行；顶层的数字取 16 KiB 分块那一行。 */
  rows: SseBenchRow[];
}

/**
 * quick：1 MB 输入、每个样本至少 20 毫秒、取 7 个样本，只测 16 KiB 分块，约 1 秒；
 * 否则 5 MB、每个样本至少 60 毫秒、15 个样本，三种分块，约 10 秒。
 */
export function benchSse(options: { quick?: boolean } = {}): SseBenchResult {
  const quick = options.quick ?? false;
  const input = makeInput(quick ? 1024 * 1024 : 5 * 1024 * 1024);
  const rounds = quick ? 7 : 15;
  const timing = quick ? { warmupMs: 150, sampleMs: 20 } : { warmupMs: 400, sampleMs: 60 };
  const sizes = quick ? [16 * 1024] : [16 * 1024, 1024, 64];
  const rows = sizes.map((size) => benchOne(input, size, rounds, timing));
  const headline = rows[0]!;
  return { ...headline, inputMB: input.length / 1024 / 1024, rounds, rows };
}

/** 造一段像 OpenAI 流的输入：中英混排的文本增量，偶尔一行保活注释，结尾 [DONE]。 */
function makeInput(targetBytes: number): Uint8Array {
  const parts: string[] = [];
  let size = 0;
  for (let i = 0; size < targetBytes; i++) {
    const content = i % 3 === 0 ? `第${i}段：流式输出` : ` token-${i} hello`;
    const chunk = { id: "chatcmpl-1", object: "chat.completion.chunk", created: 0, model: "gpt-4o-mini", choices: [{ index: 0, delta: { content }, finish_reason: null }] };
    const event = (i % 50 === 0 ? ": keep-alive\n" : "") + `data: ${JSON.stringify(chunk)}\n\n`;
    parts.push(event);
    size += Buffer.byteLength(event);
  }
  parts.push("data: [DONE]\n\n");
  return new TextEncoder().encode(parts.join(""));
}

/** 一次完整的解析，返回事件数与 data 总长，用来核对两边结果一致。 */
type Run = (chunks: Uint8Array[]) => { events: number; chars: number };

const ours: Run = (chunks) => {
  const parser = new SseParser();
  let events = 0;
  let chars = 0;
  for (const chunk of chunks) {
    for (const event of parser.feed(chunk)) {
      events++;
      chars += event.data.length;
    }
  }
  parser.end();
  return { events, chars };
};

const npm: Run = (chunks) => {
  let events = 0;
  let chars = 0;
  const parser = createParser({
    onEvent(event) {
      events++;
      chars += event.data.length;
    },
  });
  const decoder = new TextDecoder();
  for (const chunk of chunks) parser.feed(decoder.decode(chunk, { stream: true }));
  return { events, chars };
};

function benchOne(input: Uint8Array, chunkBytes: number, rounds: number, timing: { warmupMs: number; sampleMs: number }): SseBenchRow {
  const chunks: Uint8Array[] = [];
  for (let i = 0; i < input.length; i += chunkBytes) chunks.push(input.subarray(i, i + chunkBytes));
  const a = ours(chunks);
  const b = npm(chunks);
  if (a.events !== b.events || a.chars !== b.chars) {
    throw new Error(`两边结果不一致：手写=${JSON.stringify(a)} eventsource-parser=${JSON.stringify(b)}`);
  }
  // 先各热身一阵：V8 要跑热了才会把函数交给优化编译器，热身太短，测到的是没优化的版本
  throughput(ours, chunks, input.length, timing.warmupMs);
  throughput(npm, chunks, input.length, timing.warmupMs);
  const oursRuns: number[] = [];
  const npmRuns: number[] = [];
  for (let i = 0; i < rounds; i++) {
    // 交替运行：免得一方总吃到更热的缓存或更晚的 GC
    oursRuns.push(throughput(ours, chunks, input.length, timing.sampleMs));
    npmRuns.push(throughput(npm, chunks, input.length, timing.sampleMs));
  }
  const oursMBps = median(oursRuns);
  const npmMBps = median(npmRuns);
  return { chunkBytes, oursMBps, npmMBps, ratio: oursMBps / npmMBps, events: a.events };
}

/** 反复解析同一份输入，至少跑 minMs 毫秒：单次只要一两毫秒，一次 GC 就能让它翻倍。 */
function throughput(run: Run, chunks: Uint8Array[], bytes: number, minMs: number): number {
  const start = process.hrtime.bigint();
  let passes = 0;
  let elapsed = 0;
  do {
    run(chunks);
    passes++;
    elapsed = Number(process.hrtime.bigint() - start) / 1e6;
  } while (elapsed < minMs);
  return (bytes * passes) / 1024 / 1024 / (elapsed / 1000);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

// 直接运行（npm run bench）时打印表格；被 import 时什么也不做
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const quick = process.argv.includes("--quick");
  const result = benchSse({ quick });
  console.log(`SSE 解析吞吐：输入 ${result.inputMB.toFixed(2)} MB，Node ${process.version}，每种分块取 ${result.rounds} 个样本的中位数`);
  for (const row of result.rows) {
    console.log(
      `  分块 ${String(row.chunkBytes).padStart(5)} 字节：手写 ${row.oursMBps.toFixed(0).padStart(4)} MB/s · ` +
        `eventsource-parser ${row.npmMBps.toFixed(0).padStart(4)} MB/s · 比值 ${row.ratio.toFixed(2)}（${row.events} 个事件）`,
    );
  }
  const ok = result.oursMBps >= 50;
  console.log(`目标：手写解析器（16 KiB 分块）≥ 50 MB/s：${ok ? "达到" : "未达到"}；比值只作参考，不是目标`);
  if (!ok) process.exitCode = 1;
}
