/**
 * 单次调用的护栏：每次模型调用、每次工具调用，各有一个自己的 AbortController。
 *
 * 它和两样东西连在一起：
 *   - 上层的 signal（Ctrl+C）：上层一取消，这次调用跟着取消；
 *   - 一个定时器：到点了，只取消这一次调用，上层的 signal 不受影响。
 * 关键在于「取消」是真的：信号交到干活的代码手里（fetch、读文件），到点后连接真的断开、
 * 读取真的停下。只在外面「不等它了」而让它在后台接着跑，资源会悄悄漏掉。
 * 反过来，干活的代码不理会信号时，我们也不陪它等：到点就交出超时结果。
 */
import type { AssistantMessage, StreamEvent, StreamFn, TextContent } from "./types.js";

/**
 * 默认时限（main.ts 的 --model-timeout / --tool-timeout 可改，0 = 不限时）。
 * 模型：从发请求到最后一个字的总时长，要装得下 HTTP 层的重试等待与一段长回答，所以给得宽；
 * 工具：内置工具都是毫秒级的，30 秒还没完多半是卡住了。
 */
export const DEFAULT_MODEL_TIMEOUT_MS = 120_000;
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

  const expired = new Promise<void>((resolve) => {
    if (timeoutMs === undefined || !(timeoutMs > 0) || !Number.isFinite(timeoutMs)) return;
    timer = setTimeout(() => {
      // 上层已经取消了：那是取消，不是超时
      if (controller.signal.aborted) return;
      timedOut = true;
      controller.abort(new Error(`超时（${timeoutMs}ms）`));
      resolve();
    }, timeoutMs);
  });

  const ended = new Promise<void>((resolve) => {
    if (controller.signal.aborted) resolve();
    else controller.signal.addEventListener("abort", () => resolve(), { once: true });
  });

  return {
    signal: controller.signal,
    expired,
    ended,
    timedOut: () => timedOut,
    dispose() {
      clearTimeout(timer);
      parent?.removeEventListener("abort", onParentAbort);
    },
  };
}

/**
 * 给一个 StreamFn 套上整次调用的时限（从发请求到最后一个事件）。
 * 注意这是总时长上限，不是「多久没动静」：回答很长的话要把它调大。
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
    const iterator = streamFn(context, { ...options, signal: guard.signal })[Symbol.asyncIterator]();
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

function timedOutMessage(text: string, ms: number): AssistantMessage {
  const content: TextContent[] = text === "" ? [] : [{ type: "text", text }];
  return { role: "assistant", content, stopReason: "error", errorMessage: modelTimeoutMessage(ms) };
}

/**
 * Node 定时器能等的最长时间（2³¹−1 毫秒，约 24.8 天）。更大的值不会报错，
 * 而是被悄悄换成 1 毫秒——一个「很宽松」的时限就变成了立刻超时。main.ts 解析参数时据此拒绝。
 */
export const MAX_TIMER_MS = 2 ** 31 - 1;
