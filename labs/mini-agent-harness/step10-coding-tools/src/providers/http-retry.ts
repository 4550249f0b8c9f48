/**
 * 第一层重试：HTTP 请求级，用户看不见。
 *
 * 只管「拿到一个 2xx 响应」之前的那一段：连不上、429、5xx……换一个全新的请求再来。
 * 一旦响应是 2xx、开始往外流文字，这一层就撒手了——已经显示给用户的字收不回来，
 * 重发只会让屏幕上出现两遍开头。流到一半断掉的，交给外面的回合层。
 *
 * 判据照 Pi 的 retryProviderRequest（它照的是 OpenAI / Anthropic 官方 SDK）：
 *   x-should-retry 头说了算；否则 408、409、429、5xx 与「连响应都没拿到」的网络故障可以重试。
 * 我们多加一条：正文写着额度/账单用完的（OpenAI 的 insufficient_quota 也是 429）不重试。
 * 每一次等待都能被 Ctrl+C 打断；服务器要求等得太久（超过 maxRetryDelayMs）就立刻失败，
 * 而不是一声不吭地挂在那里。
 */
import { MAX_TIMER_MS } from "../guard.js";
import { httpRetryDelay, serverRequestedDelay, sleep, type HeadersLike } from "../retry/backoff.js";
import { NON_RETRYABLE_PATTERNS } from "../retry/patterns.js";
import { describeHttpError, describeNetworkError } from "./http-error.js";

/** 默认最多重试 2 次（官方 SDK 的默认值）。 */
export const DEFAULT_HTTP_MAX_RETRIES = 2;
/** 服务器要求的等待超过它就放弃：60 秒。0 表示不设上限。 */
export const DEFAULT_MAX_RETRY_DELAY_MS = 60_000;

export interface HttpRetryOptions {
  /** 最多重试几次（不含第一次请求），默认 DEFAULT_HTTP_MAX_RETRIES。 */
  maxRetries?: number | undefined;
  /** 服务器要求的等待上限（毫秒），默认 DEFAULT_MAX_RETRY_DELAY_MS；0 = 不设上限。 */
  maxRetryDelayMs?: number | undefined;
  /** 取消信号：请求中与等待中都会看它。 */
  signal?: AbortSignal | undefined;
  /** 抖动用的随机数（测试里换成固定值）。 */
  random?: (() => number) | undefined;
  /** 等待的实现（测试里换成只记账、不真等的版本）。 */
  sleep?: ((ms: number, signal?: AbortSignal) => Promise<boolean>) | undefined;
  /** 每次等待之前调用（例如显示倒计时）；返回的函数在等完或被取消后调用。 */
  onWait?: ((wait: HttpRetryWait) => (() => void) | void) | undefined;
}

/** 一次重试前的等待：等多久、第几次（从 1 数）、最多几次、是不是服务器自己要求的。 */
export interface HttpRetryWait {
  delayMs: number;
  attempt: number;
  maxRetries: number;
  requestedByServer: boolean;
}

/** 结局只有三种，都不是异常。retries：这次一共重试了几次。 */
export type HttpOutcome =
  | { kind: "response"; response: Response; retries: number }
  | { kind: "error"; errorMessage: string; retries: number }
  | { kind: "aborted"; retries: number };

/** 一次失败值不值得换个新请求再来（Pi 叫它 isRetryableProviderError）。status 为 undefined：连响应都没拿到。 */
export function isRetryableHttpFailure(
  status: number | undefined,
  headers: HeadersLike | undefined,
  errorMessage = "",
): boolean {
  // 额度用完是确定性的：等多久都一样，而且每次重试都可能照样计费
  if (NON_RETRYABLE_PATTERNS.some((pattern) => pattern.test(errorMessage))) return false;
  const shouldRetry = headers?.get("x-should-retry");
  if (shouldRetry === "true") return true;
  if (shouldRetry === "false") return false;
  if (status === undefined) return true;
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/**
 * fetch 抛出的异常是不是网络故障（连不上、DNS 失败、连接被重置……）。
 * Node 的 fetch 这时抛 TypeError("fetch failed")，真正的原因与错误码（ECONNREFUSED、
 * UND_ERR_SOCKET……）在 cause 里。地址写错之类的用法错误不算：它的错误码是 ERR_ 开头的
 * （如 ERR_INVALID_URL），重试多少次也不会变好。
 */
export function isNetworkFailure(error: unknown): boolean {
  if (!(error instanceof Error) || error.name === "AbortError") return false;
  const code = (error.cause as { code?: unknown } | undefined)?.code ?? (error as { code?: unknown }).code;
  if (typeof code === "string" && code.startsWith("ERR_")) return false;
  // 证书错误不是「网络抖了一下」：重连只会拿到同一张坏证书。
  if (typeof code === "string" && /CERT|SELF_SIGNED|UNABLE_TO_VERIFY/.test(code)) return false;
  return error.message === "fetch failed" || typeof code === "string";
}

/** 服务器要求的等待超过上限时的错误：点名它要等多久、上限是多少，原始错误接在后面。 */
export function retryDelayTooLongMessage(requestedMs: number, maxMs: number, errorMessage: string): string {
  return `服务器要求等待 ${formatWait(requestedMs)}，超过上限 ${formatWait(maxMs)}，放弃重试：${errorMessage}`;
}

/** 一秒以上按秒（向上取整），不到一秒按毫秒。 */
function formatWait(ms: number): string {
  return ms >= 1000 ? `${Math.ceil(ms / 1000)} 秒` : `${Math.ceil(ms)} 毫秒`;
}

/**
 * 发请求，必要时重发。send 每次都要发一个全新的请求（请求体不能复用已读过的流）。
 * 非 2xx 响应的正文在这里读掉（既为了错误说明，也为了释放连接）；2xx 的原样交回去。
 */
export async function requestWithRetry(send: () => Promise<Response>, options: HttpRetryOptions = {}): Promise<HttpOutcome> {
  const { signal } = options;
  const maxRetries = options.maxRetries ?? DEFAULT_HTTP_MAX_RETRIES;
  const maxRetryDelayMs = options.maxRetryDelayMs ?? DEFAULT_MAX_RETRY_DELAY_MS;
  const wait = options.sleep ?? sleep;

  for (let retries = 0; ; retries++) {
    let headers: Headers | undefined;
    let errorMessage: string;
    let retryable: boolean;
    try {
      const response = await send();
      if (response.ok) return { kind: "response", response, retries };
      headers = response.headers;
      errorMessage = await describeHttpError(response);
      retryable = isRetryableHttpFailure(response.status, headers, errorMessage);
    } catch (error) {
      if (signal?.aborted) return { kind: "aborted", retries };
      errorMessage = describeNetworkError(error);
      retryable = isNetworkFailure(error) && isRetryableHttpFailure(undefined, undefined, errorMessage);
    }
    // 取消永远不重试
    if (signal?.aborted) return { kind: "aborted", retries };
    if (retries >= maxRetries || !retryable) return { kind: "error", errorMessage, retries };

    const requested = serverRequestedDelay(headers);
    // 不设上限（0）也有个极限：定时器最多等 2³¹−1 毫秒，更大的值会被悄悄换成 1 毫秒，变成立刻重试
    const limit = maxRetryDelayMs > 0 ? Math.min(maxRetryDelayMs, MAX_TIMER_MS) : MAX_TIMER_MS;
    if (requested !== undefined && requested > limit) {
      return { kind: "error", errorMessage: retryDelayTooLongMessage(requested, limit, errorMessage), retries };
    }
    const delayMs = httpRetryDelay(retries + 1, headers, options.random);
    const done = options.onWait?.({ delayMs, attempt: retries + 1, maxRetries, requestedByServer: requested !== undefined });
    const slept = await wait(delayMs, signal);
    done?.();
    if (!slept) return { kind: "aborted", retries };
  }
}
