/**
 * sleep 的两个边角（变异测试找出来的，见 scripts/mutation/）：
 * 不用等的时候连定时器都不设；被取消之后信号上不留监听。
 */
import { getEventListeners } from "node:events";
import { afterEach, describe, expect, it, vi } from "vitest";

import { sleep } from "../src/retry/backoff.js";

afterEach(() => {
  vi.useRealTimers();
});

describe("sleep 的边角", () => {
  it.each([0, -5])("等 %i 毫秒：不设定时器，时钟不动也立刻返回 true", async (ms) => {
    vi.useFakeTimers();
    const pending = sleep(ms);
    expect(vi.getTimerCount()).toBe(0);
    await expect(pending).resolves.toBe(true);
  });

  it("被取消之后：信号上的 abort 监听已经摘掉", async () => {
    vi.useFakeTimers();
    const controller = new AbortController();
    const pending = sleep(60_000, controller.signal);
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(1);
    controller.abort();
    await expect(pending).resolves.toBe(false);
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
    expect(vi.getTimerCount()).toBe(0); // 定时器也清掉了
  });
});
