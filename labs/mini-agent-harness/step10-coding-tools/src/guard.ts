/**
 * 单次调用的护栏：每次模型调用、每次工具调用，各有一个自己的 AbortController。
 *
 * 它和两样东西连在一起：
 *   - 上层的 signal（Ctrl+C）：上层一取消，这次调用跟着取消；
 *   - 一个定时器：到点了，只取消这一次调用，上层的 signal 不受影响。工具的是总时限；
 *     模型的是空闲时限：每收到一点动静（一个字节、一个事件）就从头计时。
 * 关键在于「取消」是真的：信号交到干活的代码手里（fetch、读文件），到点后连接真的断开、
 * 读取真的停下。只在外面「不等它了」而让它在后台接着跑，资源会悄悄漏掉。
 * 反过来，干活的代码不理会信号时，我们也不陪它等：到点就交出超时结果。
 */
import type { AssistantMessage, StreamEvent, StreamFn, TextContent } from "./types.js";

/**
 * 默认时限（main.ts 的 --model-timeout / --tool-timeout 可改，0 = 不限时）。
 * 模型：最长多久收不到服务器的任何一个字节。照 Pi 的 httpIdleTimeoutMs，默认 300 000
 * （pi-coding-agent 1.6.0 的 src/core/http-dispatcher.ts:4）：还在流的长推理永远不会被掐断，所以不设总时长；
 * 工具：总时长。内置工具都是毫秒级的，30 秒还没完多半是卡住了。
 */
export const DEFAULT_MODEL_TIMEOUT_MS = 300_000;
export const DEFAULT_TOOL_TIMEOUT_MS = 30_000;

/** 模型超时的错误说明。措辞里的「超时」让分类器把它认作可重试。 */
export function modelTimeoutMessage(ms: number): string {
  return `模型调用超时（${ms}ms）`;
}

/** 工具超时的结果内容：交给模型看的，模型可以换个办法再试。 */
export function toolTimeoutMessage(name: string, ms: number): string {
  return `工具 ${name} 执行超时（${ms}ms）`;
}

export interface CallGuard {
  /** 这次调用自己的信号：上层取消或超时，它都会触发。 */
  signal: AbortSignal;
  /** 定时器到点时 resolve；没设超时就永远不会 resolve。 */
  expired: Promise<void>;
  /** 从现在起重新计时（模型的空闲时限：每有一点动静就调一次）。 */
  restart(): void;
  /** 这次调用的信号被触发时 resolve：超时或上层取消，哪个先到都算。 */
  ended: Promise<void>;
  /** 是不是因为超时而取消的（而不是上层取消）。 */
  timedOut(): boolean;
  /** 调用结束后必须调用：清掉定时器与挂在上层 signal 上的监听。 */
  dispose(): void;
}

/** 为一次调用造一个护栏。timeoutMs 不是正数时只连上层信号，不计时。 */
export function guardCall(parent: AbortSignal | undefined, timeoutMs: number | undefined): CallGuard {
  const controller = new AbortController();
  let timedOut = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const onParentAbort = (): void => controller.abort(parent?.reason);
  if (parent?.aborted) controller.abort(parent.reason);
  else parent?.addEventListener("abort", onParentAbort, { once: true });

  let expire = (): void => {};
  const expired = new Promise<void>((resolve) => (expire = resolve));
  const restart = (): void => {
    if (timeoutMs === undefined || !(timeoutMs > 0) || !Number.isFinite(timeoutMs)) return;
    clearTimeout(timer);
    timer = setTimeout(() => {
      // 上层已经取消了：那是取消，不是超时
      if (controller.signal.aborted) return;
      timedOut = true;
      controller.abort(new Error(`超时（${timeoutMs}ms）`));
      expire();
    }, timeoutMs);
  };
  restart();

  const ended = new Promise<void>((resolve) => {
    if (controller.signal.aborted) resolve();
    else controller.signal.addEventListener("abort", () => resolve(), { once: true });
  });

  return {
    signal: controller.signal,
    expired,
    restart,
    ended,
    timedOut: () => timedOut,
    dispose() {
      clearTimeout(timer);
      parent?.removeEventListener("abort", onParentAbort);
    },
  };
}

/**
 * 给一个 StreamFn 套上空闲时限：最长 ms 毫秒没有任何动静，就算超时。动静是底下收到的每一块字节
 * （streamRequest 在响应头到达、正文每来一块时调 onActivity，SSE 的注释行也算），以及交上来的每一个事件。
 * 所以一段一直在流的长推理永远不会被掐断，一句话也不说的服务器几秒钟就被认出来；没有总时长。
 *
 * 到点时：
 *   1. 取消这次调用自己的信号 → 底层的 fetch 真的断开，服务器看得见；
 *   2. 立刻以 stopReason "error"、errorMessage「模型调用超时（<ms>ms）」收尾，
 *      已经流出的文字保留在消息里——不等底层慢慢收尾，哪怕它根本不理会信号。
 * Ctrl+C（上层 signal）则照旧交给底层处理，结局是 "aborted"，不是超时。
 * 包出来的仍然是 StreamFn：不 throw、不 reject，恰好一个 done。ms 为 0 时原样返回 streamFn。
 */
export function withModelTimeout(streamFn: StreamFn, ms: number): StreamFn {
  if (!(ms > 0) || !Number.isFinite(ms)) return streamFn; // 0 或不给：不限时
  return async function* (context, options) {
    const guard = guardCall(options?.signal, ms);
    // 底下每收到一块字节就报一次动静，空闲时钟从头算起
    const iterator = streamFn(context, { ...options, signal: guard.signal, onActivity: guard.restart })[Symbol.asyncIterator]();
    const expired = guard.expired.then(() => "expired" as const);
    let text = "";
    let exhausted = false;
    try {
      for (;;) {
        const next = iterator.next();
        const winner = await Promise.race([next, expired]);
        // 看状态而不看谁先到：底层可能正是因为信号被取消才「抢先」交出了 aborted
        if (winner === "expired" || guard.timedOut()) {
          next.catch(() => {}); // 底层迟到的结果没人要了，也不许它变成未处理的拒绝
          yield { type: "done", message: timedOutMessage(text, ms) };
          return;
        }
        if (winner.done) {
          exhausted = true;
          return; // 没有 done 就结束了：agent-loop 会补一条错误消息
        }
        const event: StreamEvent = winner.value;
        guard.restart(); // 事件也是动静：不经过 HTTP 的 StreamFn 只有这一种
        if (event.type === "text_delta") text += event.delta;
        yield event;
        if (event.type === "done") return;
      }
    } finally {
      guard.dispose();
      // 底层还停在某个 yield 上（收到 done 就走、超时、调用方不读了）：让它也收尾，执行它自己的 finally
      if (!exhausted) iterator.return?.().catch(() => {});
    }
  };
}

/** 空闲时钟的耳朵之一，装在 streamRequest 里：fetch 拿到响应头时报一次动静（每一次重试、每一跳重定向都算）。 */
export function reportHeaders(doFetch: typeof fetch, onActivity: (() => void) | undefined): typeof fetch {
  if (!onActivity) return doFetch;
  return async (input, init) => {
    const response = await doFetch(input, init);
    onActivity();
    return response;
  };
}

/** 空闲时钟的耳朵之二：响应体每来一块字节报一次动静（DeepSeek 排队时发的 `: keep-alive` 注释也在里面）。 */
export function reportChunks(body: ReadableStream<Uint8Array>, onActivity: (() => void) | undefined): ReadableStream<Uint8Array> {
  if (!onActivity) return body;
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        onActivity();
        controller.enqueue(chunk);
      },
    }),
  );
}

function timedOutMessage(text: string, ms: number): AssistantMessage {
  const content: TextContent[] = text === "" ? [] : [{ type: "text", text }];
  return { role: "assistant", content, stopReason: "error", errorMessage: modelTimeoutMessage(ms) };
}

/**
 * Node 定时器能等的最长时间（2³¹−1 毫秒，约 24.8 天）。更大的值不会报错，
 * 而是被悄悄换成 1 毫秒——一个「很宽松」的时限就变成了立刻超时。main.ts 解析参数时据此拒绝。
 */
export const MAX_TIMER_MS = 2 ** 31 - 1;
