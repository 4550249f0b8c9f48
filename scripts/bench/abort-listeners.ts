// 监听器泄漏：同一个 AbortSignal 上做 10 000 次 sleep（信号始终不触发，就像一个很长的会话一直用同一个控制器），
// 之后 events.getEventListeners(signal, "abort") 必须是 0——每次 sleep 结束都要把自己的监听器摘掉。
//
// 做法：step07 的假模型，剧本是一长串单字符 token、delayMs = 1，让许多条流同时跑在同一个 signal 上；
// 每个 token 之前的 sleep 都会在 signal 上挂一个 abort 监听器。
// 按绝对时间排期的 sleep 在落后时会直接跳过（不挂监听器），所以用一个包在 signal 上的计数器数出
// 真正挂上去的次数，一直跑到满 10 000 次为止。
import { getEventListeners, setMaxListeners } from "node:events";
import { importFrom, stepByNumber, rootOf, type BenchOptions, type Figure } from "./lib.ts";

export const title = "取消监听器";

type StreamFnLike = (context: unknown, options?: { signal?: AbortSignal }) => AsyncIterable<{ type: string }>;
interface FakeModelModule {
  createFakeModel(options: { rules?: unknown[]; delayMs?: number }): StreamFnLike;
}

const SLEEPS = 10_000;
const STREAMS = 100; // 同时跑的流
const TOKENS = 100; // 每条流的 token 数

export async function run(options: BenchOptions): Promise<Figure[]> {
  const step07 = stepByNumber(rootOf(options), 7);
  const { createFakeModel } = await importFrom<FakeModelModule>(step07, "src/fake-model.ts");
  const model = createFakeModel({ rules: [{ on: "", reply: ".".repeat(TOKENS) }], delayMs: 1 });

  const controller = new AbortController();
  const signal = controller.signal;
  // 同时有 STREAMS 个 sleep 挂着是预期内的；不调高上限的话 Node 会打印 MaxListenersExceededWarning
  setMaxListeners(STREAMS + 1, signal);

  let added = 0;
  let peak = 0;
  const original = signal.addEventListener.bind(signal);
  signal.addEventListener = ((type: string, listener: EventListenerOrEventListenerObject, opts?: AddEventListenerOptions | boolean) => {
    original(type, listener, opts);
    if (type === "abort") {
      added++;
      peak = Math.max(peak, getEventListeners(signal, "abort").length);
    }
  }) as typeof signal.addEventListener;

  const context = { messages: [{ role: "user", content: "x" }] };
  const drain = async (): Promise<void> => {
    for await (const _event of model(context, { signal })) {
      // 只要把流读完
    }
  };
  const started = performance.now();
  for (let wave = 0; added < SLEEPS; wave++) {
    if (wave >= 50) throw new Error(`跑了 ${wave} 轮只挂上 ${added} 个监听器：sleep 好像没有用到 signal`);
    await Promise.all(Array.from({ length: STREAMS }, drain));
  }
  const elapsed = performance.now() - started;
  const left = getEventListeners(signal, "abort").length;

  return [
    { name: "同一 signal 上挂过监听器的 sleep 次数", value: added, unit: "次", target: `≥ ${SLEEPS.toLocaleString("en-US")}`, ok: added >= SLEEPS },
    { name: `同时挂着的监听器峰值（${STREAMS} 条流并发）`, value: peak, unit: "个" },
    { name: "全部结束后剩下的 abort 监听器", value: left, unit: "个", target: "0", ok: left === 0 },
    { name: "用时", value: elapsed, unit: "ms" },
  ];
}
