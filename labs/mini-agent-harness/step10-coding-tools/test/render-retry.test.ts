import { describe, expect, it } from "vitest";
import { renderEvents } from "../src/render.js";
import { describeRetryEvent, isRetryEvent } from "../src/render-retry.js";
import { OVERFLOW_RECOVERY_FAILED, RETRY_CANCELLED, runWithRetry } from "../src/retry/turn-retry.js";
import { createBuiltinTools } from "../src/tools/index.js";
import type { AssistantMessage, RetryEvent, StreamFn } from "../src/types.js";

describe("describeRetryEvent：每个重试层事件一行中文", () => {
  it.each([
    [
      { type: "auto_retry_start", attempt: 1, maxAttempts: 3, delayMs: 2000, errorMessage: "HTTP 500：Internal Server Error" },
      "[重试] 第 1/3 次，2000ms 后重试：HTTP 500：Internal Server Error\n",
    ],
    [{ type: "auto_retry_end", success: true, attempt: 2 }, "[重试成功] 第 2 次重试成功\n"],
    [
      { type: "auto_retry_end", success: false, attempt: 3, finalError: "HTTP 503：Service Unavailable" },
      "[重试失败] 已重试 3 次，放弃：HTTP 503：Service Unavailable\n",
    ],
    [{ type: "auto_retry_end", success: false, attempt: 1, finalError: RETRY_CANCELLED }, "[重试取消] 已尝试 1 次，第 1 次重试已取消\n"],
    [{ type: "auto_retry_end", success: false, attempt: 2, finalError: RETRY_CANCELLED }, "[重试取消] 已尝试 2 次，第 2 次重试已取消\n"],
    [{ type: "compaction", dropped: 6, willRetry: true }, "[压缩] 上下文超出窗口，省略最早的 6 条消息后重试一次\n"],
    [
      { type: "compaction", dropped: 6, willRetry: false },
      "[压缩] 输入已超出上下文窗口，省略最早的 6 条消息（从下一次请求起生效）\n",
    ],
    [{ type: "compaction_failed", errorMessage: OVERFLOW_RECOVERY_FAILED }, `[压缩失败] ${OVERFLOW_RECOVERY_FAILED}\n`],
  ] as Array<[RetryEvent, string]>)("%j", (event, line) => {
    expect(isRetryEvent(event)).toBe(true);
    expect(describeRetryEvent(event)).toBe(line);
  });

  it("循环自己的事件不是重试事件", () => {
    expect(isRetryEvent({ type: "abort" })).toBe(false);
    expect(isRetryEvent({ type: "turn_start", turn: 1 })).toBe(false);
  });
});

describe("renderEvents + runWithRetry：终端上看到的样子", () => {
  it("500 → 重试 → 成功", async () => {
    const replies: AssistantMessage[] = [
      { role: "assistant", content: [], stopReason: "error", errorMessage: "HTTP 500：api_error：Internal Server Error" },
      { role: "assistant", content: [{ type: "text", text: "你好！" }], stopReason: "stop" },
    ];
    let calls = 0;
    const streamFn: StreamFn = async function* () {
      const reply = replies[calls++] as AssistantMessage;
      for (const block of reply.content) if (block.type === "text") yield { type: "text_delta", delta: block.text };
      yield { type: "done", message: reply };
    };
    let out = "";
    await renderEvents(
      runWithRetry({
        streamFn,
        context: { messages: [{ role: "user", content: "你好" }] },
        tools: createBuiltinTools(),
        toolContext: { cwd: "." },
        baseDelayMs: 5,
      }),
      (text) => {
        out += text;
      },
    );
    expect(out).toBe(
      [
        "[第 1 轮]",
        "[错误] HTTP 500：api_error：Internal Server Error",
        "[第 1 轮结束]",
        "[重试] 第 1/3 次，5ms 后重试：HTTP 500：api_error：Internal Server Error",
        "[第 1 轮]",
        "助手> 你好！",
        "[重试成功] 第 1 次重试成功",
        "[第 1 轮结束]",
        "",
      ].join("\n"),
    );
  });
});
