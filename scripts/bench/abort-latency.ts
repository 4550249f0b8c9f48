// 取消延迟：abort() 调用之后，多久能从 runAgentLoop 拿到 abort 事件（也就是屏幕上出现 [已取消] 的时刻）。
//
// 比较的是什么——两边用的是同一个 step07 的 runAgentLoop、同一份剧本、同一个 200 ms 的 token 间隔，
// 在同一个随机时刻（第 1 个 token 之后 10–190 ms 之间）调用 abort()，唯一的区别是模型里的等待：
//   - 可取消：step07 的假模型。sleep(ms, signal) 与 abort 事件赛跑，abort 一来就醒，
//     醒来立刻检查 signal.aborted，交出 stopReason "aborted" 的半截消息。
//   - 普通：step06 的假模型，它的 sleep 不认识 signal，非睡满 200 ms 不可。外面包一层，
//     在每个 token 到达时检查 signal.aborted——检查的位置与 step07 完全相同（睡醒之后、吐字之前），
//     所以循环同样会看到 "aborted"，只是要等下一个 token 真的到了才看得到。
// 于是两者之差恰好就是「可取消的 sleep」这一件事的作用：前者应在 2 ms 以内，后者最长接近一个 token 间隔。
import os from "node:os";
import { importFrom, max, median, stepByNumber, rootOf, type BenchOptions, type Figure } from "./lib.ts";

export const title = "取消延迟";

const DELAY_MS = 200;

// 步骤里的类型只声明用到的部分
interface AssistantLike {
  role: "assistant";
  content: Array<{ type: "text"; text: string }>;
  stopReason: string;
}
type StreamEventLike = { type: "text_delta"; delta: string } | { type: "done"; message: AssistantLike };
type StreamFnLike = (context: unknown, options?: { signal?: AbortSignal }) => AsyncIterable<StreamEventLike>;
interface FakeModelModule {
  createFakeModel(options: { rules?: unknown[]; delayMs?: number }): StreamFnLike;
}
interface AgentLoopModule {
  runAgentLoop(options: {
    streamFn: StreamFnLike;
    context: { messages: unknown[] };
    tools: unknown;
    toolContext: { cwd: string };
    signal?: AbortSignal;
  }): AsyncIterable<{ type: string }>;
}
interface ToolsModule {
  ToolRegistry: new () => unknown;
}

const RULES = [{ on: "", reply: "这是一段很长的回复，我会一个 token 一个 token 地慢慢吐出来，好让你看清流式输出是怎么回事。" }];

/** step06 的模型（sleep 不可取消）+ 与 step07 相同位置的取消检查 */
function plainSleepModel(step06: StreamFnLike): StreamFnLike {
  return async function* (context, options) {
    let text = "";
    for await (const event of step06(context)) {
      // token 到了（sleep 睡满了）才有机会看一眼 signal
      if (event.type === "text_delta" && options?.signal?.aborted) {
        yield { type: "done", message: { role: "assistant", content: text ? [{ type: "text", text }] : [], stopReason: "aborted" } };
        return;
      }
      if (event.type === "text_delta") text += event.delta;
      yield event;
    }
  };
}

/** 一次：第 1 个 token 到达后再等 offsetMs 调用 abort()，返回 abort() → abort 事件的毫秒数 */
async function once(loop: AgentLoopModule, tools: ToolsModule, streamFn: StreamFnLike, offsetMs: number): Promise<number> {
  const controller = new AbortController();
  let abortedAt: number | undefined;
  let timer: NodeJS.Timeout | undefined;
  const events = loop.runAgentLoop({
    streamFn,
    context: { messages: [{ role: "user", content: "说个长的" }] },
    tools: new tools.ToolRegistry(),
    toolContext: { cwd: os.tmpdir() },
    signal: controller.signal,
  });
  try {
    for await (const event of events) {
      if (event.type === "text_delta" && timer === undefined) {
        timer = setTimeout(() => {
          abortedAt = performance.now();
          controller.abort();
        }, offsetMs);
      }
      if (event.type === "abort") {
        if (abortedAt === undefined) throw new Error("还没调用 abort() 就收到了 abort 事件");
        return performance.now() - abortedAt;
      }
    }
  } finally {
    clearTimeout(timer);
  }
  throw new Error("回复结束了也没有收到 abort 事件（剧本太短？）");
}

export async function run(options: BenchOptions): Promise<Figure[]> {
  const root = rootOf(options);
  const step07 = stepByNumber(root, 7);
  const step06 = stepByNumber(root, 6);
  const loop = await importFrom<AgentLoopModule>(step07, "src/agent-loop.ts");
  const tools = await importFrom<ToolsModule>(step07, "src/tools/types.ts");
  const cancellable = (await importFrom<FakeModelModule>(step07, "src/fake-model.ts")).createFakeModel({ rules: RULES, delayMs: DELAY_MS });
  const plain = plainSleepModel((await importFrom<FakeModelModule>(step06, "src/fake-model.ts")).createFakeModel({ rules: RULES, delayMs: DELAY_MS }));

  const trials = options.quick ? 3 : 20;
  // 两边用同一串随机时刻，交替进行，机器状态的波动对两边一样
  const offsets = Array.from({ length: trials }, () => 10 + Math.random() * (DELAY_MS - 20));
  const fast: number[] = [];
  const slow: number[] = [];
  for (const offset of offsets) {
    fast.push(await once(loop, tools, cancellable, offset));
    slow.push(await once(loop, tools, plain, offset));
  }
  const fastMedian = median(fast);
  const slowMedian = median(slow);
  return [
    { name: `可取消 sleep（step07）中位数，${trials} 次`, value: fastMedian, unit: "ms", target: "≤ 2 ms", ok: fastMedian <= 2 },
    { name: "可取消 sleep（step07）最大", value: max(fast), unit: "ms" },
    { name: `普通 sleep（step06 模型 + 取消检查）中位数，${trials} 次`, value: slowMedian, unit: "ms" },
    // 预期最长接近一个 token 间隔（200 ms）；这是对照组，不设目标
    { name: "普通 sleep（step06 模型 + 取消检查）最大", value: max(slow), unit: "ms" },
    { name: "普通 / 可取消（中位数之比）", value: slowMedian / fastMedian, unit: "×" },
  ];
}
