/**
 * 长时间的等待要让人看见（issue 13）：retry-after: 24 的 HTTP 层会连等两次，以前整整 49 秒没有一个字。
 * 时钟用 vitest 的假定时器推进，测试本身不真等。
 */
import { afterEach, describe, expect, it, vi } from "vitest";

import { showHttpRetryWait } from "../src/render-retry.js";
import { renderEvents } from "../src/render.js";
import { startCountdown } from "../src/retry/countdown.js";
import { requestWithRetry, type HttpRetryWait } from "../src/providers/http-retry.js";
import type { HarnessEvent } from "../src/types.js";

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllEnvs();
});

function capture(isTTY: boolean): { out: { write: (t: string) => void; isTTY: boolean }; text: () => string } {
  let text = "";
  return { out: { write: (t) => (text += t), isTTY }, text: () => text };
}

describe("startCountdown", () => {
  it("终端：原地每秒改写一行，等完擦掉", () => {
    vi.useFakeTimers();
    vi.stubEnv("TERM", "xterm-256color");
    const { out, text } = capture(true);
    const stop = startCountdown(3000, (left) => `还剩 ${left} 秒`, out);
    vi.advanceTimersByTime(1000);
    vi.advanceTimersByTime(1000);
    stop();
    expect(text()).toBe("\r\x1b[K还剩 3 秒\r\x1b[K还剩 2 秒\r\x1b[K还剩 1 秒\r\x1b[K");
    vi.advanceTimersByTime(5000);
    expect(text()).toBe("\r\x1b[K还剩 3 秒\r\x1b[K还剩 2 秒\r\x1b[K还剩 1 秒\r\x1b[K"); // 收起之后不再写
  });

  it("哑终端（TERM=dumb）：和不是终端一样只打印一行，不写控制序列", () => {
    vi.useFakeTimers();
    vi.stubEnv("TERM", "dumb");
    const { out, text } = capture(true);
    const stop = startCountdown(3000, (left) => `还剩 ${left} 秒`, out);
    vi.advanceTimersByTime(3000);
    stop();
    expect(text()).toBe("还剩 3 秒\n");
  });

  it("不是终端：只打印一行，不更新", () => {
    vi.useFakeTimers();
    const { out, text } = capture(false);
    const stop = startCountdown(24_000, (left) => `还剩 ${left} 秒`, out);
    vi.advanceTimersByTime(10_000);
    stop();
    expect(text()).toBe("还剩 24 秒\n");
  });

  it("不到 1 秒的等待什么都不显示", () => {
    const { out, text } = capture(true);
    startCountdown(1000, () => "x", out)();
    expect(text()).toBe("");
  });
});

describe("HTTP 层：retry-after: 24 的等待看得见", () => {
  it("每次等待前都报出等多久、第几次；文字是 issue 里那一行", async () => {
    const waits: HttpRetryWait[] = [];
    const lines: string[] = [];
    let calls = 0;
    const busy = (): Response =>
      new Response(JSON.stringify({ error: { type: "rate_limit_error", message: "slow down" } }), { status: 429, headers: { "retry-after": "24" } });
    const outcome = await requestWithRetry(async () => (++calls <= 2 ? busy() : new Response("data: [DONE]\n\n", { status: 200 })), {
      sleep: async () => true,
      onWait: (wait) => {
        waits.push(wait);
        return showHttpRetryWait(wait, { write: (t: string) => lines.push(t), isTTY: false });
      },
    });
    expect(outcome.kind).toBe("response");
    expect(waits).toEqual([
      { delayMs: 24_000, attempt: 1, maxRetries: 2, requestedByServer: true },
      { delayMs: 24_000, attempt: 2, maxRetries: 2, requestedByServer: true },
    ]);
    expect(lines).toEqual(["服务器要求等待 24 秒，第 1/2 次重试…（Ctrl+C 取消）\n", "服务器要求等待 24 秒，第 2/2 次重试…（Ctrl+C 取消）\n"]);
  });
});

describe("回合层：终端上在「[重试]」下面倒计时，下一个事件一到就擦掉", () => {
  it("终端：倒计时一行原地更新；不是终端：输出与以前逐字相同", async () => {
    vi.useFakeTimers();
    vi.stubEnv("TERM", "xterm-256color");
    let release = (): void => {};
    const waited = new Promise<void>((resolve) => (release = resolve));
    async function* events(): AsyncGenerator<HarnessEvent> {
      yield { type: "auto_retry_start", attempt: 1, maxAttempts: 3, delayMs: 2000, errorMessage: "HTTP 503：overloaded" };
      await waited;
      yield { type: "turn_start", turn: 1 };
    }
    let shown = "";
    const rendering = renderEvents(events(), (t) => (shown += t), true);
    await vi.advanceTimersByTimeAsync(1000);
    release();
    await rendering;
    expect(shown).toBe(
      "[重试] 第 1/3 次，2000ms 后重试：HTTP 503：overloaded\n\r\x1b[K  还要等 2 秒…（Ctrl+C 取消）\r\x1b[K  还要等 1 秒…（Ctrl+C 取消）\r\x1b[K[第 1 轮]\n",
    );

    let plain = "";
    async function* again(): AsyncGenerator<HarnessEvent> {
      yield { type: "auto_retry_start", attempt: 1, maxAttempts: 3, delayMs: 2000, errorMessage: "HTTP 503：overloaded" };
      yield { type: "turn_start", turn: 1 };
    }
    await renderEvents(again(), (t) => (plain += t), false);
    expect(plain).toBe("[重试] 第 1/3 次，2000ms 后重试：HTTP 503：overloaded\n[第 1 轮]\n");
  });
});
