/**
 * 会话里有我们不认识的内容块（别的工具写的文件，例如 {"type":"image"}）：两种协议都带不了它。
 * 以前它被当成没有 text 的文本块发给 Anthropic，这个会话之后的每一次请求都被拒收。
 * 现在发请求时拿掉它、说一行（每条消息只说一次）；会话文件里它照样在。
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import { buildAnthropicRequest } from "../src/providers/anthropic-messages.js";
import { buildOpenAIRequest } from "../src/providers/openai-completions.js";
import { Session } from "../src/session.js";
import type { Context } from "../src/types.js";

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "harness-unknown-blocks-"));
});
afterEach(() => {
  vi.restoreAllMocks();
  fs.rmSync(dir, { recursive: true, force: true });
});

const config = { baseUrl: "http://127.0.0.1:1", apiKey: "", model: "m" };
const IMAGE = { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } };

/** 一个别的工具写下的会话：第二条是带图片块的助手消息，接着一个工具调用与它的结果。 */
function foreignSession(): string {
  const file = path.join(dir, "s.jsonl");
  const lines = [
    { type: "message", id: "e1", parentId: null, message: { role: "user", content: "看看这张图，再算 1+1" } },
    {
      type: "message",
      id: "e2",
      parentId: "e1",
      message: { role: "assistant", stopReason: "toolUse", content: [IMAGE, { type: "text", text: "图上是一只猫。" }, { type: "toolCall", id: "c1", name: "calc", arguments: { expression: "1+1" } }] },
    },
    { type: "message", id: "e3", parentId: "e2", message: { role: "toolResult", toolCallId: "c1", toolName: "calc", content: "2" } },
    { type: "message", id: "e4", parentId: "e3", message: { role: "user", content: "还有呢" } },
  ];
  fs.writeFileSync(file, lines.map((line) => `${JSON.stringify(line)}\n`).join(""));
  return file;
}

describe("请求带不了的内容块", () => {
  it("Anthropic 与 OpenAI 的请求里都没有它，别的块照常；只说一行，说出类型；会话文件一个字节不少", () => {
    const file = foreignSession();
    const before = fs.readFileSync(file);
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const context: Context = { messages: Session.open(file).messages() };

    const anthropic = buildAnthropicRequest(config, context) as { messages: Array<{ role: string; content: unknown }> };
    expect(anthropic.messages[1]).toEqual({
      role: "assistant",
      content: [
        { type: "text", text: "图上是一只猫。" },
        { type: "tool_use", id: "c1", name: "calc", input: { expression: "1+1" } },
      ],
    });
    const openai = buildOpenAIRequest(config, context) as { messages: Array<Record<string, unknown>> };
    expect(openai.messages[1]).toEqual({
      role: "assistant",
      content: "图上是一只猫。",
      tool_calls: [{ id: "c1", type: "function", function: { name: "calc", arguments: '{"expression":"1+1"}' } }],
    });

    // 同一条消息发了两次请求，也只说一次
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0]?.[0]).toBe('[警告] 会话里有一条助手消息带着请求发不了的内容块（type："image"）：这次请求不带它们，会话文件里照样保存着');
    // 上下文里它还在，文件也没动
    expect(context.messages[1]).toMatchObject({ content: [IMAGE, { type: "text" }, { type: "toolCall" }] });
    expect(fs.readFileSync(file).equals(before)).toBe(true);
  });

  it("只有不认识的块：这条助手消息整条不发（和空消息一样）；类型名里的控制字符显示成转义", () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const context = {
      messages: [
        { role: "user", content: "你好" },
        { role: "assistant", stopReason: "stop", content: [{ type: "audio\u001b[31m" }] },
        { role: "user", content: "在吗" },
      ],
    } as unknown as Context;
    expect((buildAnthropicRequest(config, context) as { messages: unknown[] }).messages).toEqual([
      { role: "user", content: "你好" },
      { role: "user", content: "在吗" },
    ]);
    expect(warn.mock.calls[0]?.[0]).toContain('type："audio\\u001b[31m"');
    expect(String(warn.mock.calls[0]?.[0])).not.toContain("\u001b");
  });
});
