import { afterEach, describe, expect, it } from "vitest";
import { startProviderServer, type ProviderServer, type Script } from "scripted-provider";
import { createAnthropicStream } from "../src/providers/anthropic-messages.js";
import { createOpenAIStream } from "../src/providers/openai-completions.js";
import { classifyAssistantError } from "../src/retry/classify.js";
import { isNetworkFailure, isRetryableHttpFailure, requestWithRetry, type HttpRetryOptions } from "../src/providers/http-retry.js";
import type { StreamFn } from "../src/types.js";
import { collect, KEY, textOf } from "./helpers/providers.js";

// ── 单元：假的 send、只记账不真等的 sleep ─────────────────────────

const json = (status: number, body: unknown, headers: Record<string, string> = {}): Response =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });
const ok = (): Response => new Response("data: [DONE]\n\n", { status: 200 });
const apiError = (status: number, message = "boom", headers?: Record<string, string>): Response =>
  json(status, { error: { type: "api_error", message } }, headers);
const networkError = (code: string): TypeError =>
  new TypeError("fetch failed", { cause: Object.assign(new Error(`connect ${code} 127.0.0.1:1`), { code }) });

/** 按顺序给出回复（或抛出异常）的 send；记下被调用了几次。 */
function scriptedSend(...steps: Array<Response | Error>): (() => Promise<Response>) & { calls: number } {
  const send = Object.assign(
    async () => {
      const step = steps[send.calls++];
      if (!step) throw new Error("剧本用完了");
      if (step instanceof Error) throw step;
      return step;
    },
    { calls: 0 },
  );
  return send;
}

/** 不真等：记下每次要等多久。 */
function recordingSleep(): { sleep: NonNullable<HttpRetryOptions["sleep"]>; delays: number[] } {
  const delays: number[] = [];
  return { delays, sleep: async (ms) => (delays.push(ms), true) };
}

describe("isRetryableHttpFailure：照官方 SDK 的规矩", () => {
  it.each([408, 409, 429, 500, 502, 503, 504, 524, 529])("%i → 重试", (status) => {
    expect(isRetryableHttpFailure(status, new Headers())).toBe(true);
  });
  it.each([400, 401, 403, 404, 413, 422])("%i → 不重试", (status) => {
    expect(isRetryableHttpFailure(status, new Headers())).toBe(false);
  });
  it("没有状态（连响应都没拿到）→ 重试", () => {
    expect(isRetryableHttpFailure(undefined, undefined)).toBe(true);
  });
  it("x-should-retry 压过状态码", () => {
    expect(isRetryableHttpFailure(400, new Headers({ "x-should-retry": "true" }))).toBe(true);
    expect(isRetryableHttpFailure(503, new Headers({ "x-should-retry": "false" }))).toBe(false);
  });
  it("额度用完压过一切：429 + insufficient_quota 不重试，哪怕 x-should-retry: true", () => {
    const message = "HTTP 429：insufficient_quota：You exceeded your current quota";
    expect(isRetryableHttpFailure(429, new Headers({ "x-should-retry": "true" }), message)).toBe(false);
  });
});

describe("isNetworkFailure", () => {
  it("fetch failed / 带错误码的是网络故障；地址写错、取消不是", () => {
    expect(isNetworkFailure(networkError("ECONNREFUSED"))).toBe(true);
    expect(isNetworkFailure(new TypeError("fetch failed"))).toBe(true);
    expect(isNetworkFailure(new TypeError("Failed to parse URL from api.example.com/v1"))).toBe(false);
    const badUrl = new TypeError("Failed to parse URL from api.example.com/v1", {
      cause: Object.assign(new TypeError("Invalid URL"), { code: "ERR_INVALID_URL" }),
    });
    expect(isNetworkFailure(badUrl)).toBe(false);
    expect(isNetworkFailure(new DOMException("This operation was aborted", "AbortError"))).toBe(false);
    expect(isNetworkFailure("fetch failed")).toBe(false);
    // 证书错误：网络是通的，重连只会拿到同一张坏证书
    expect(isNetworkFailure(networkError("UNABLE_TO_GET_ISSUER_CERT_LOCALLY"))).toBe(false);
    expect(isNetworkFailure(networkError("CERT_HAS_EXPIRED"))).toBe(false);
  });
});

describe("requestWithRetry（单元）", () => {
  it("500、500、200：重试两次，等待按 0.5 s、1 s（random=0 时不抖动）", async () => {
    const send = scriptedSend(apiError(500), apiError(500), ok());
    const { sleep, delays } = recordingSleep();
    const outcome = await requestWithRetry(send, { sleep, random: () => 0 });
    expect(outcome).toMatchObject({ kind: "response", retries: 2 });
    expect(send.calls).toBe(3);
    expect(delays).toEqual([500, 1000]);
  });

  it("默认最多重试 2 次：第三次还失败就交出最后那个错误", async () => {
    const send = scriptedSend(apiError(503, "a"), apiError(503, "b"), apiError(503, "c"), ok());
    const { sleep, delays } = recordingSleep();
    expect(await requestWithRetry(send, { sleep, random: () => 1 })).toEqual({
      kind: "error",
      errorMessage: "HTTP 503：api_error：c",
      retries: 2,
    });
    expect(send.calls).toBe(3);
    expect(delays).toEqual([375, 750]); // random=1：少等 25%
  });

  it("maxRetries 可配置；0 = 只发一次", async () => {
    const once = scriptedSend(apiError(500), ok());
    expect(await requestWithRetry(once, { maxRetries: 0 })).toMatchObject({ kind: "error", retries: 0 });
    expect(once.calls).toBe(1);
    const many = scriptedSend(apiError(500), apiError(500), apiError(500), apiError(500), ok());
    const { sleep, delays } = recordingSleep();
    expect(await requestWithRetry(many, { maxRetries: 5, sleep, random: () => 0 })).toMatchObject({ kind: "response", retries: 4 });
    expect(delays).toEqual([500, 1000, 2000, 4000]);
  });

  it("服务器给的等待优先：retry-after-ms，其次 retry-after", async () => {
    const send = scriptedSend(apiError(429, "slow", { "retry-after-ms": "50" }), apiError(503, "x", { "retry-after": "3" }), ok());
    const { sleep, delays } = recordingSleep();
    await requestWithRetry(send, { sleep });
    expect(delays).toEqual([50, 3000]);
  });

  it("网络故障（还没有任何响应）重试；地址写错不重试", async () => {
    const send = scriptedSend(networkError("ECONNREFUSED"), networkError("ECONNRESET"), ok());
    const { sleep } = recordingSleep();
    expect(await requestWithRetry(send, { sleep })).toMatchObject({ kind: "response", retries: 2 });
    const bad = scriptedSend(new TypeError("Failed to parse URL from x"), ok());
    expect(await requestWithRetry(bad, { sleep })).toEqual({
      kind: "error",
      errorMessage: "网络错误：Failed to parse URL from x",
      retries: 0,
    });
    expect(bad.calls).toBe(1);
  });

  it("网络故障用尽重试：错误说明带着原因与错误码", async () => {
    const send = scriptedSend(networkError("ECONNREFUSED"), networkError("ECONNREFUSED"), networkError("ECONNREFUSED"));
    const { sleep } = recordingSleep();
    expect(await requestWithRetry(send, { sleep })).toEqual({
      kind: "error",
      errorMessage: "网络错误：connect ECONNREFUSED 127.0.0.1:1",
      retries: 2,
    });
  });

  it("服务器要等 120 秒、上限 60 秒：立刻失败，错误里点名两个数；上限设成 0 就照等", async () => {
    const tooLong = () => scriptedSend(apiError(429, "Too Many Requests", { "retry-after": "120" }), ok());
    const { sleep, delays } = recordingSleep();
    const send = tooLong();
    expect(await requestWithRetry(send, { sleep })).toEqual({
      kind: "error",
      errorMessage: "服务器要求等待 120 秒，超过上限 60 秒，放弃重试：HTTP 429：api_error：Too Many Requests",
      retries: 0,
    });
    expect(send.calls).toBe(1);
    expect(delays).toEqual([]);
    expect(await requestWithRetry(tooLong(), { sleep, maxRetryDelayMs: 0 })).toMatchObject({ kind: "response" });
    expect(delays).toEqual([120_000]);
    expect(await requestWithRetry(tooLong(), { sleep, maxRetryDelayMs: 200_000 })).toMatchObject({ kind: "response" });
  });

  it("重试次数已用完时不谈上限：交出原始错误（与 Pi 相同）", async () => {
    const send = scriptedSend(apiError(429, "Too Many Requests", { "retry-after": "120" }));
    expect(await requestWithRetry(send, { maxRetries: 0 })).toMatchObject({
      kind: "error",
      errorMessage: "HTTP 429：api_error：Too Many Requests",
    });
  });

  it("请求中途取消：aborted，不重试", async () => {
    const controller = new AbortController();
    const send = Object.assign(async () => {
      controller.abort();
      throw new DOMException("This operation was aborted", "AbortError");
    });
    expect(await requestWithRetry(send, { signal: controller.signal })).toEqual({ kind: "aborted", retries: 0 });
  });

  it("等待中取消：aborted（真的 sleep，被信号打断）", async () => {
    const controller = new AbortController();
    const send = scriptedSend(apiError(503, "x", { "retry-after-ms": "60000" }), ok());
    const pending = requestWithRetry(send, { signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    expect(await pending).toEqual({ kind: "aborted", retries: 0 });
    expect(send.calls).toBe(1);
  });
});

// ── 集成：真的本地脚本服务器 ─────────────────────────────────────

const servers: ProviderServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function serve(script: Script, config: { maxRetries?: number; maxRetryDelayMs?: number } = {}) {
  const server = await startProviderServer(script);
  servers.push(server);
  const stream: StreamFn = createOpenAIStream({ baseUrl: server.openaiBaseUrl, apiKey: KEY, model: "m", ...config });
  return { server, stream };
}

describe("HTTP 层重试：对着真的本地服务器", () => {
  it("429 + retry-after-ms 50 一次，然后成功：用户只看到成功；服务器收到 2 个请求", async () => {
    const { server, stream } = await serve([{ httpError: 429, headers: { "retry-after-ms": "50" } }, { text: "终于好了" }]);
    const { deltas, message } = await collect(stream);
    expect(message.stopReason).toBe("stop");
    expect(deltas.join("")).toBe("终于好了");
    expect(server.requests).toHaveLength(2);
    // 两次请求一模一样：每次都是全新的请求
    expect(server.requests[1]?.body).toEqual(server.requests[0]?.body);
  });

  it("retry-after: 120（超过 60 秒上限）：立刻失败，错误里写明 120 秒；只有 1 个请求", async () => {
    const { server, stream } = await serve([{ httpError: 429, headers: { "retry-after": "120" } }, { text: "不该走到这里" }]);
    const started = Date.now();
    const { message } = await collect(stream);
    expect(Date.now() - started).toBeLessThan(10_000); // 宽松上限：证明没有真等两分钟
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toBe(
      "服务器要求等待 120 秒，超过上限 60 秒，放弃重试：HTTP 429：rate_limit_error：Too Many Requests",
    );
    expect(server.requests).toHaveLength(1);
    // 外面的回合层也不再重试（与 Pi 不同，见 classify.ts 表三的最后一条）
    expect(classifyAssistantError(message)).toBe("fatal");
  });

  it("maxRetryDelayMs 可按 Provider 配置", async () => {
    const { server, stream } = await serve([{ httpError: 503, headers: { "retry-after-ms": "80" } }, { text: "好" }], {
      maxRetryDelayMs: 50,
    });
    expect((await collect(stream)).message.errorMessage).toBe(
      "服务器要求等待 80 毫秒，超过上限 50 毫秒，放弃重试：HTTP 503：api_error：Service Unavailable",
    );
    expect(server.requests).toHaveLength(1);
  });

  it("500 两次然后成功：服务器收到 3 个请求", async () => {
    const fail = { httpError: 500, headers: { "retry-after-ms": "10" } };
    const { server, stream } = await serve([fail, fail, { text: "第三次成功" }]);
    const { message } = await collect(stream);
    expect(textOf(message)).toBe("第三次成功");
    expect(server.requests).toHaveLength(3);
  });

  it("500 三次（默认只重试 2 次）：交出最后那个错误；第 4 段脚本没被用到", async () => {
    const fail = { httpError: 500, headers: { "retry-after-ms": "10" } };
    const { server, stream } = await serve([fail, fail, fail, { text: "用不到" }]);
    expect((await collect(stream)).message.errorMessage).toBe("HTTP 500：api_error：Internal Server Error");
    expect(server.requests).toHaveLength(3);
  });

  it("503 没有给等待时间：按指数退避（第一次至多 0.5 秒）", async () => {
    const { server, stream } = await serve([{ httpError: 503 }, { text: "好" }]);
    expect((await collect(stream)).message.stopReason).toBe("stop");
    expect(server.requests).toHaveLength(2);
  });

  it("503 + x-should-retry: false：不重试", async () => {
    const { server, stream } = await serve([{ httpError: 503, headers: { "x-should-retry": "false" } }, { text: "用不到" }]);
    expect((await collect(stream)).message.errorMessage).toBe("HTTP 503：api_error：Service Unavailable");
    expect(server.requests).toHaveLength(1);
  });

  it("400 + x-should-retry: true：照样重试", async () => {
    const { server, stream } = await serve([
      { httpError: 400, headers: { "x-should-retry": "true", "retry-after-ms": "10" } },
      { text: "好" },
    ]);
    expect((await collect(stream)).message.stopReason).toBe("stop");
    expect(server.requests).toHaveLength(2);
  });

  it("429 insufficient_quota（OpenAI 的额度用完）：不重试，回合层也判为致命", async () => {
    const body = {
      error: {
        message: "You exceeded your current quota, please check your plan and billing details.",
        type: "insufficient_quota",
        code: "insufficient_quota",
      },
    };
    const { server, stream } = await serve([{ httpError: 429, body, headers: { "retry-after-ms": "10" } }, { text: "用不到" }]);
    const { message } = await collect(stream);
    expect(message.errorMessage).toBe(
      "HTTP 429：insufficient_quota：You exceeded your current quota, please check your plan and billing details.",
    );
    expect(server.requests).toHaveLength(1);
    expect(classifyAssistantError(message)).toBe("fatal");
  });

  it("等待中按下取消：很快以 aborted 收场（不是 error），没有第 2 个请求", async () => {
    const { server, stream } = await serve([{ httpError: 503, headers: { "retry-after-ms": "30000" } }, { text: "用不到" }]);
    const controller = new AbortController();
    const started = Date.now();
    const pending = collect(stream, undefined, { signal: controller.signal });
    await waitUntil(() => server.requests.length === 1);
    setTimeout(() => controller.abort(), 20); // 让客户端先读完错误正文、进入等待
    const { message } = await pending;
    expect(message).toEqual({ role: "assistant", content: [], stopReason: "aborted" });
    expect(Date.now() - started).toBeLessThan(10_000); // 宽松上限：远小于 30 秒
    expect(server.requests).toHaveLength(1);
  });

  it("文字已经流出来以后断了：不重试（说过的话收不回），交给回合层", async () => {
    const { server, stream } = await serve([{ text: "一二三四五六", dropAfterChunks: 3 }, { text: "用不到" }]);
    const { deltas, message } = await collect(stream);
    expect(deltas).toEqual(["一二"]);
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toMatch(/^流在结束前中断：/);
    expect(server.requests).toHaveLength(1);
    expect(classifyAssistantError(message)).toBe("retryable");
  });

  it("Anthropic 协议同样重试：529 overloaded → 成功", async () => {
    const server = await startProviderServer([{ httpError: 529, headers: { "retry-after-ms": "10" } }, { text: "好了" }]);
    servers.push(server);
    const stream = createAnthropicStream({ baseUrl: server.anthropicBaseUrl, apiKey: KEY, model: "m" });
    expect(textOf((await collect(stream)).message)).toBe("好了");
    expect(server.requests.map((request) => request.path)).toEqual(["/v1/messages", "/v1/messages"]);
  });

  it("连不上本机的端口（ECONNREFUSED）：仍是网络错误，但不重试（本地服务器没开，等也没用；见 local-refusal-retry.test.ts）", async () => {
    const server = await startProviderServer([]);
    await server.close();
    const stream = createOpenAIStream({ baseUrl: server.openaiBaseUrl, apiKey: KEY, model: "m", maxRetries: 1 });
    const { message } = await collect(stream);
    expect(message.errorMessage).toMatch(/^网络错误：.*ECONNREFUSED/);
    expect(classifyAssistantError(message)).toBe("fatal");
  });
});

async function waitUntil(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}
