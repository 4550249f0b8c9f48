import { getEventListeners, setMaxListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { httpRetryDelay, serverRequestedDelay, sleep, turnRetryDelay } from "../src/retry/backoff.js";
import { useFakeClock } from "./helpers/wait.js";

describe("turnRetryDelay：baseDelayMs·2^(attempt−1)，封顶 60 秒", () => {
  it.each([
    [1, 2000, 2000],
    [2, 2000, 4000],
    [3, 2000, 8000],
    [4, 2000, 16000],
    [1, 10, 10],
    [3, 10, 40],
    [6, 2000, 60000], // 64 s 被封顶
    [60, 2000, 60000], // 再大也不会溢出成 Infinity
  ])("第 %i 次、base %i → %i ms", (attempt, base, expected) => {
    expect(turnRetryDelay(attempt, base)).toBe(expected);
  });

  it("上限可以改", () => {
    expect(turnRetryDelay(3, 2000, 5000)).toBe(5000);
  });
});

const headers = (values: Record<string, string>): Headers => new Headers(values);
const NOW = Date.parse("2026-01-01T00:00:00Z");

describe("httpRetryDelay：没有服务器的意见时 min(0.5·2^(attempt−1), 8) 秒，减去至多 25% 的抖动", () => {
  it.each([
    // attempt, random, 期望毫秒
    [1, 0, 500],
    [2, 0, 1000],
    [3, 0, 2000],
    [4, 0, 4000],
    [5, 0, 8000],
    [6, 0, 8000], // 封顶 8 秒
    [1, 1, 375], // random 取到最大：少等 25%
    [2, 1, 750],
    [5, 1, 6000],
    [3, 0.5, 1750],
  ])("第 %i 次、random=%f → %f ms", (attempt, random, expected) => {
    expect(httpRetryDelay(attempt, undefined, () => random)).toBeCloseTo(expected, 6);
  });

  it.each([
    [{ "retry-after-ms": "50" }, 50],
    [{ "retry-after-ms": "12.5" }, 12.5],
    [{ "retry-after": "2" }, 2000],
    [{ "retry-after": "1.5" }, 1500],
    [{ "retry-after-ms": "50", "retry-after": "9" }, 50], // 毫秒版优先
    [{ "retry-after-ms": "soon", "retry-after": "3" }, 3000], // 毫秒版看不懂：改看秒数版
    [{ "retry-after": "Thu, 01 Jan 2026 00:00:30 GMT" }, 30000], // HTTP 日期
    [{ "retry-after": "Wed, 31 Dec 2025 23:59:00 GMT" }, 0], // 日期已经过去：不用等
  ])("服务器说了算：%j → %i ms（不加抖动）", (values, expected) => {
    expect(httpRetryDelay(1, headers(values), () => 1, NOW)).toBe(expected);
    expect(serverRequestedDelay(headers(values), NOW)).toBe(expected);
  });

  it("看不懂的 retry-after：退回指数退避", () => {
    expect(serverRequestedDelay(headers({ "retry-after": "later" }), NOW)).toBeUndefined();
    expect(httpRetryDelay(2, headers({ "retry-after": "later" }), () => 0, NOW)).toBe(1000);
  });
});

describe("sleep：可取消、从不 reject、不留监听", () => {
  it("睡满：true", async () => {
    await expect(sleep(5)).resolves.toBe(true);
    await expect(sleep(0)).resolves.toBe(true);
  });

  it("中途取消：立刻返回 false", async (test) => {
    useFakeClock(test); // 时钟不动：那一分钟永远不会到，能结束只能是因为取消
    const controller = new AbortController();
    const pending = sleep(60_000, controller.signal);
    controller.abort();
    await expect(pending).resolves.toBe(false);
  });

  it("已经取消的信号：不睡，false", async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(sleep(60_000, controller.signal)).resolves.toBe(false);
  });

  it("同一个信号上睡一千次：一个 abort 监听都不留", async () => {
    const controller = new AbortController();
    // 故意同时挂 1000 个：先把这个信号的上限调高，否则 Node 会打印 MaxListenersExceededWarning
    // （8.5 节讲过，这条警告平时意味着泄漏；这里不是泄漏，下面一行就证明监听都摘掉了）
    setMaxListeners(1000, controller.signal);
    await Promise.all(Array.from({ length: 1000 }, () => sleep(1, controller.signal)));
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
    const pending = Array.from({ length: 10 }, () => sleep(60_000, controller.signal));
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(10);
    controller.abort();
    expect(await Promise.all(pending)).toEqual(Array(10).fill(false));
  });
});
