/**
 * 终端经得起外来的文字（issue 31 第 8、14 条）：双向控制符显示成看得见的写法；
 * 10 MB 的工具参数在终端上只显示开头并说明省略了多少，会话文件里一个字节不少；
 * TERM=dumb 与 NO_COLOR 时不写颜色与光标控制序列。
 */

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it, type TestContext } from "vitest";

import { renderEvents } from "../src/render.js";
import { Session } from "../src/session.js";
import { clipForTerminal, colorAllowed, cursorAllowed, MAX_SHOWN_CHARS } from "../src/guards/shown.js";
import type { HarnessEvent } from "../src/types.js";

async function* stream(events: HarnessEvent[]): AsyncGenerator<HarnessEvent> {
  yield* events;
}

async function render(events: AsyncIterable<HarnessEvent>): Promise<string> {
  let out = "";
  await renderEvents(events, (text) => (out += text));
  return out;
}

// 从右到左覆盖（U+202E）能把「txt.exe」显示成「exe.txt」；其余是嵌入、隔离与方向标记
const BIDI = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c";
const BIDI_SHOWN = "\\u202a\\u202b\\u202c\\u202d\\u202e\\u2066\\u2067\\u2068\\u2069\\u200e\\u200f\\u061c";

describe("双向文字控制符显示成看得见的写法", () => {
  it("模型文字、工具调用、工具结果、错误信息里都不原样输出", async () => {
    const out = await render(stream([
      { type: "text_delta", delta: `答${BIDI}` },
      { type: "message", message: { role: "assistant", content: [{ type: "toolCall", id: "1", name: `t${BIDI}`, arguments: { x: 1 } }], stopReason: "error", errorMessage: `坏了${BIDI}` } },
      { type: "message", message: { role: "toolResult", toolCallId: "1", toolName: "t", content: `gpj.${BIDI}exe` } },
    ]));
    expect(out).not.toMatch(/[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/);
    expect(out).toContain(`助手> 答${BIDI_SHOWN}`);
    expect(out).toContain(`[工具调用] t${BIDI_SHOWN} {"x":1}`);
    expect(out).toContain(`[错误] 坏了${BIDI_SHOWN}`);
    expect(out).toContain(`[工具结果] t → gpj.${BIDI_SHOWN}exe`);
  });

  it("普通的汉字、表情与阿拉伯文照常显示", async () => {
    const out = await render(stream([{ type: "text_delta", delta: "你好😀مرحبا" }]));
    expect(out).toBe("助手> 你好😀مرحبا\n");
  });
});

describe("长得离谱的一行：终端上只显示开头，会话文件里是完整的", () => {
  function sandbox(test: TestContext): string {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "terminal-safe-"));
    test.onTestFinished(() => fs.rmSync(dir, { recursive: true, force: true }));
    return dir;
  }

  it("10 MB 的工具参数与工具结果：各占一行，不超过上限太多，说明省略了多少个字符", async (test) => {
    const huge = "字".repeat(10 * 1024 * 1024);
    const file = path.join(sandbox(test), "s.jsonl");
    const session = Session.create(file);
    const out = await render(session.record(stream([
      { type: "message", message: { role: "assistant", content: [{ type: "toolCall", id: "1", name: "write_file", arguments: { text: huge } }], stopReason: "toolUse" } },
      { type: "message", message: { role: "toolResult", toolCallId: "1", toolName: "write_file", content: huge } },
    ])));
    const lines = out.trimEnd().split("\n");
    expect(lines).toHaveLength(2);
    for (const line of lines) expect(line.length).toBeLessThan(MAX_SHOWN_CHARS + 100);
    expect(lines[0]).toMatch(/^\[工具调用\] write_file \{"text":"字+ …（终端上省略了 \d+ 个字符，会话文件里是完整的）$/);
    expect(lines[1]).toMatch(/^\[工具结果\] write_file → 字+ …（终端上省略了 \d+ 个字符，会话文件里是完整的）$/);
    const saved = fs.readFileSync(file, "utf8").trimEnd().split("\n").map((line) => JSON.parse(line));
    expect(saved[0].message.content[0].arguments.text).toBe(huge);
    expect(saved[1].message.content).toBe(huge);
  });

  it("省略的字符数是准的，表情不会被切成两半", () => {
    const text = `${"a".repeat(9)}😀😀b`;
    expect(clipForTerminal(text, 10)).toBe(`${"a".repeat(9)} …（终端上省略了 3 个字符，会话文件里是完整的）`);
    expect(clipForTerminal(text, 11)).toBe(`${"a".repeat(9)}😀 …（终端上省略了 2 个字符，会话文件里是完整的）`);
    expect(clipForTerminal("短", 10)).toBe("短");
  });
});

describe("哪里可以写颜色与光标控制序列", () => {
  const tty = { isTTY: true };
  it("终端上可以；TERM=dumb、管道与文件上都不行", () => {
    expect(cursorAllowed(tty, { TERM: "xterm-256color" })).toBe(true);
    expect(colorAllowed(tty, { TERM: "xterm-256color" })).toBe(true);
    expect(cursorAllowed(tty, { TERM: "dumb" })).toBe(false);
    expect(colorAllowed(tty, { TERM: "dumb" })).toBe(false);
    expect(cursorAllowed({ isTTY: false }, {})).toBe(false);
    expect(colorAllowed({}, {})).toBe(false);
  });

  it("NO_COLOR 只关掉颜色；空的 NO_COLOR 不算设置", () => {
    expect(colorAllowed(tty, { NO_COLOR: "1" })).toBe(false);
    expect(cursorAllowed(tty, { NO_COLOR: "1" })).toBe(true);
    expect(colorAllowed(tty, { NO_COLOR: "" })).toBe(true);
  });
});
