/**
 * HTTP 层重试的边角（变异测试找出来的，见 scripts/mutation/）：
 * 什么异常算网络故障、等待的说法、读错误正文时被取消、onWait 说清楚等待是谁要求的。
 * 等待都换成只记账的假 sleep，不起服务器、不真等。
 */
import { describe, expect, it } from "vitest";

import { isNetworkFailure, requestWithRetry, retryDelayTooLongMessage, type HttpRetryWait } from "../src/providers/http-retry.js";

const apiError = (status: number): Response =>
  new Response(JSON.stringify({ error: { type: "api_error", message: "boom" } }), { status, headers: { "content-type": "application/json" } });

describe("isNetworkFailure 的边角", () => {
  it("带字符串错误码的异常是网络故障，哪怕消息不是 fetch failed", () => {
    expect(isNetworkFailure(Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" }))).toBe(true);
    expect(isNetworkFailure(Object.assign(new Error("x"), { cause: { code: "UND_ERR_SOCKET" } }))).toBe(true);
  });

  it("错误码不是字符串：只看消息是不是 fetch failed", () => {
    expect(isNetworkFailure(Object.assign(new Error("boom"), { code: 20 }))).toBe(false);
    expect(isNetworkFailure(Object.assign(new Error("fetch failed"), { code: 20 }))).toBe(true);
  });

  it("取消（AbortError）不是网络故障，哪怕它带着错误码", () => {
    expect(isNetworkFailure(Object.assign(new Error("The operation was aborted"), { name: "AbortError", code: "ABORT_ERR" }))).toBe(false);
  });

  it("不是 Error 的东西不算：哪怕长得像", () => {
    expect(isNetworkFailure("fetch failed")).toBe(false);
    expect(isNetworkFailure({ name: "TypeError", message: "fetch failed", code: "ECONNRESET" })).toBe(false);
    expect(isNetworkFailure(undefined)).toBe(false);
  });
});

describe("等待太久的错误说明", () => {
  it("整 1 秒说成「1 秒」，不到 1 秒说毫秒，向上取整", () => {
    expect(retryDelayTooLongMessage(1000, 999, "HTTP 429：x")).toBe("服务器要求等待 1 秒，超过上限 999 毫秒，放弃重试：HTTP 429：x");
    expect(retryDelayTooLongMessage(1001, 1000, "e")).toBe("服务器要求等待 2 秒，超过上限 1 秒，放弃重试：e");
    expect(retryDelayTooLongMessage(0.5, 0.2, "e")).toBe("服务器要求等待 1 毫秒，超过上限 1 毫秒，放弃重试：e");
  });
});

describe("requestWithRetry 的边角", () => {
  it("拿到错误响应的同时用户取消了：aborted，而不是把错误交出去", async () => {
    const controller = new AbortController();
    const outcome = await requestWithRetry(
      async () => {
        controller.abort();
        return apiError(500);
      },
      { signal: controller.signal, maxRetries: 0 },
    );
    expect(outcome).toEqual({ kind: "aborted", retries: 0 });
  });

  it("onWait：没有服务器要求时 requestedByServer 是 false，等待结束后收起显示", async () => {
    const waits: HttpRetryWait[] = [];
    const log: string[] = [];
    let calls = 0;
    const outcome = await requestWithRetry(async () => (++calls === 1 ? apiError(503) : new Response("data: [DONE]\n\n")), {
      random: () => 0,
      sleep: async (ms) => {
        log.push(`sleep ${ms}`);
        return true;
      },
      onWait: (wait) => {
        waits.push(wait);
        log.push("show");
        return () => log.push("hide");
      },
    });
    expect(outcome).toMatchObject({ kind: "response", retries: 1 });
    expect(waits).toEqual([{ delayMs: 500, attempt: 1, maxRetries: 2, requestedByServer: false }]);
    expect(log).toEqual(["show", "sleep 500", "hide"]);
  });
});
