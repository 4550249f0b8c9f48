/**
 * 等多久、怎么等。两层重试各有各的公式，等待本身共用一个可取消的 sleep。
 */

/** 回合层的等待上限（Pi 的 maxAgentDelayMs）：指数增长到这里就不再增长。 */
export const DEFAULT_MAX_TURN_DELAY_MS = 60_000;

/**
 * 回合层：第 attempt 次重试（从 1 数起）前等 baseDelayMs·2^(attempt−1)。
 * 默认 2000 ms → 2 s、4 s、8 s。不加抖动：用户看得见这个数，演示也要稳定。
 */
export function turnRetryDelay(attempt: number, baseDelayMs: number, maxDelayMs = DEFAULT_MAX_TURN_DELAY_MS): number {
  const delay = baseDelayMs * 2 ** Math.max(0, attempt - 1);
  return Math.min(delay, maxDelayMs);
}

/** 只要能按名字取响应头就行：fetch 的 Headers，或测试里手造的对象。 */
export interface HeadersLike {
  get(name: string): string | null;
}

/** 响应头里的一个等待值：非负的十进制数，可以带小数。-5、12abc、0x10、1e400 之类一律当作没说。 */
const DECIMAL = /^\s*\d+(?:\.\d+)?\s*$/;

/**
 * 服务器自己说了要等多久吗？先看 retry-after-ms（毫秒），再看 retry-after
 * （秒数，或者一个 HTTP 日期）。没说、或者说得看不懂，返回 undefined。
 * 返回的总是有限的非负数；它能不能等（有没有超过上限与定时器的极限）由调用方判断。
 */
export function serverRequestedDelay(headers: HeadersLike | undefined, now = Date.now()): number | undefined {
  const ms = headers?.get("retry-after-ms");
  const after = headers?.get("retry-after");
  const value =
    ms && DECIMAL.test(ms) ? Number(ms)
    : after && DECIMAL.test(after) ? Number(after) * 1000
    : after && /[a-z]/i.test(after) ? Math.max(0, Date.parse(after) - now) // HTTP 日期总有星期与月份的名字；日期已经过去：不用等
    : undefined;
  return Number.isFinite(value) ? value : undefined;
}

/**
 * HTTP 层：第 attempt 次重试（从 1 数起）前等多久。
 * 服务器给了就听服务器的；否则 min(0.5·2^(attempt−1), 8) 秒，再随机减掉最多 25%，
 * 免得一群客户端在同一时刻一起涌回来。第 1、2、3 次分别是至多 0.5、1、2 秒。
 * （Pi 用从 0 数起的 retryIndex 写成 0.5·2^retryIndex，数值完全一样。）
 */
export function httpRetryDelay(
  attempt: number,
  headers?: HeadersLike,
  random: () => number = Math.random,
  now = Date.now(),
): number {
  const requested = serverRequestedDelay(headers, now);
  if (requested !== undefined) return requested;
  const seconds = Math.min(0.5 * 2 ** Math.max(0, attempt - 1), 8);
  return seconds * 1000 * (1 - random() * 0.25);
}

/**
 * 可取消的等待：睡满了返回 true，被 signal 打断返回 false。
 * 永远 resolve、从不 reject——调用方用 if 判断，而不是 try/catch；
 * 无论哪种结局，定时器与 abort 监听都会被清掉，同一个 signal 上睡一万次也不留痕迹。
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(false);
  if (ms <= 0) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve(true);
    }, ms);
    function onAbort(): void {
      clearTimeout(timer);
      resolve(false);
    }
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
