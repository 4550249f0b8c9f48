// 渲染层的边角：变异测试（npm run mutation）找出来的、render.test.ts 与 render-retry.test.ts 没有测到的行为。
// 「是不是终端」默认看 process.stdout：测试里临时换掉它的 write 与 isTTY，测完换回。
import { afterEach, describe, expect, it } from "vitest";

import { renderEvents } from "../src/render.js";
import { describeRetryEvent, showHttpRetryWait } from "../src/render-retry.js";
import type { HarnessEvent } from "../src/types.js";

async function* from(events: HarnessEvent[]): AsyncGenerator<HarnessEvent> {
  yield* events;
}

const THINK_THEN_ANSWER: HarnessEvent[] = [
  { type: "thinking_delta", delta: "想" },
  { type: "text_delta", delta: "答" },
];

const stdout = { write: process.stdout.write, isTTY: process.stdout.isTTY, noColor: process.env.NO_COLOR, term: process.env.TERM };
afterEach(() => {
  process.stdout.write = stdout.write;
  process.stdout.isTTY = stdout.isTTY;
  if (stdout.noColor === undefined) delete process.env.NO_COLOR;
  else process.env.NO_COLOR = stdout.noColor;
  if (stdout.term === undefined) delete process.env.TERM;
  else process.env.TERM = stdout.term;
});

/** 用默认的输出目标（process.stdout）渲染，收集写出去的字。 */
async function renderToStdout(events: HarnessEvent[], isTTY: boolean): Promise<string> {
  let out = "";
  process.stdout.isTTY = isTTY;
  process.stdout.write = ((text: string) => ((out += text), true)) as typeof process.stdout.write;
  try {
    await renderEvents(from(events));
  } finally {
    process.stdout.write = stdout.write;
    process.stdout.isTTY = stdout.isTTY;
  }
  return out;
}

describe("renderEvents：终端上调暗推理", () => {
  it("默认写到标准输出；它是终端时推理调暗，换到回答前恢复", async () => {
    delete process.env.NO_COLOR;
    process.env.TERM = "xterm-256color"; // 哑终端上不调暗，见 color-dumb.test.ts
    expect(await renderToStdout(THINK_THEN_ANSWER, true)).toBe("\x1b[2m思考> 想\x1b[0m\n助手> 答\n");
  });

  it("标准输出不是终端、设了 NO_COLOR、或换了输出目标：不带任何转义序列", async () => {
    delete process.env.NO_COLOR;
    expect(await renderToStdout(THINK_THEN_ANSWER, false)).toBe("思考> 想\n助手> 答\n");
    process.env.NO_COLOR = "1";
    expect(await renderToStdout(THINK_THEN_ANSWER, true)).toBe("思考> 想\n助手> 答\n");
    delete process.env.NO_COLOR;
    process.stdout.isTTY = true;
    let out = "";
    await renderEvents(from(THINK_THEN_ANSWER), (text) => (out += text));
    expect(out).toBe("思考> 想\n助手> 答\n");
  });

  it("不是终端时，回合层的重试只打印那一行，不加倒计时", async () => {
    const event: HarnessEvent = { type: "auto_retry_start", attempt: 1, maxAttempts: 3, delayMs: 5000, errorMessage: "HTTP 500" };
    let out = "";
    await renderEvents(from([event]), (text) => (out += text), false);
    expect(out).toBe(describeRetryEvent(event));
  });

  it("终端上也只有「开始重试」才加倒计时：别的重试事件只打印那一行", async () => {
    const event: HarnessEvent = { type: "auto_retry_end", success: true, attempt: 1 };
    let out = "";
    await renderEvents(from([event]), (text) => (out += text), true);
    expect(out).toBe(describeRetryEvent(event));
  });
});

describe("工具结果与重试的措辞", () => {
  it("工具结果末尾的几个空行都不算行数", async () => {
    let out = "";
    await renderEvents(from([{ type: "message", message: { role: "toolResult", toolCallId: "c", toolName: "read_file", content: "一\n二\n\n\n" } }]), (text) => (out += text), false);
    expect(out).toBe("[工具结果] read_file → 一 …（共 2 行）\n");
  });

  it("出错的助手消息没有 errorMessage：说未知错误", async () => {
    let out = "";
    await renderEvents(from([{ type: "message", message: { role: "assistant", content: [], stopReason: "error" } }]), (text) => (out += text), false);
    expect(out).toBe("[错误] 未知错误\n");
  });

  it("重试失败却没有 finalError：说未知错误", () => {
    expect(describeRetryEvent({ type: "auto_retry_end", success: false, attempt: 2 })).toBe("[重试失败] 已重试 2 次，放弃：未知错误\n");
  });

  it("HTTP 层的等待：服务器要求的与自己算出来的说法不同", () => {
    const lines: string[] = [];
    const out = { write: (text: string) => lines.push(text), isTTY: false };
    showHttpRetryWait({ delayMs: 3000, attempt: 1, maxRetries: 2, requestedByServer: true }, out)();
    showHttpRetryWait({ delayMs: 2000, attempt: 2, maxRetries: 2, requestedByServer: false }, out)();
    expect(lines).toEqual(["服务器要求等待 3 秒，第 1/2 次重试…（Ctrl+C 取消）\n", "等待 2 秒，第 2/2 次重试…（Ctrl+C 取消）\n"]);
  });
});
