import { describe, expect, it } from "vitest";

import { renderEvents } from "../src/render.js";
import type { HarnessEvent } from "../src/types.js";

async function render(events: HarnessEvent[]): Promise<string> {
  let out = "";
  async function* stream(): AsyncGenerator<HarnessEvent> {
    yield* events;
  }
  await renderEvents(stream(), (text) => (out += text));
  return out;
}

describe("renderEvents", () => {
  it("流式文本、工具调用、工具结果与轮次", async () => {
    const out = await render([
      { type: "turn_start", turn: 1 },
      { type: "text_delta", delta: "交给" },
      { type: "text_delta", delta: "工具。" },
      { type: "message", message: { role: "assistant", content: [{ type: "text", text: "交给工具。" }, { type: "toolCall", id: "1", name: "calc", arguments: { expression: "17*38" } }], stopReason: "toolUse" } },
      { type: "tool_call", toolCall: { type: "toolCall", id: "1", name: "calc", arguments: { expression: "17*38" } } },
      { type: "message", message: { role: "toolResult", toolCallId: "1", toolName: "calc", content: "646" } },
      { type: "turn_end", turn: 1 },
    ]);
    expect(out).toBe('[第 1 轮]\n助手> 交给工具。\n[工具调用] calc {"expression":"17*38"}\n[工具结果] calc → 646\n[第 1 轮结束]\n');
  });

  it("错误结果带（出错），多行结果只显示第一行", async () => {
    const out = await render([
      { type: "message", message: { role: "toolResult", toolCallId: "1", toolName: "upper", content: "未注册的工具：upper", isError: true } },
      { type: "message", message: { role: "toolResult", toolCallId: "2", toolName: "read_file", content: "a\nb\nc" } },
    ]);
    expect(out).toBe("[工具结果] upper → 未注册的工具：upper（出错）\n[工具结果] read_file → a …（共 3 行）\n");
  });

  it("模型失败显示成一行错误；取消时先换行再打印 [已取消]", async () => {
    const out = await render([
      { type: "text_delta", delta: "半句" },
      { type: "message", message: { role: "assistant", content: [{ type: "text", text: "半句" }], stopReason: "error", errorMessage: "连接断了" } },
      { type: "text_delta", delta: "这是" },
      { type: "abort" },
      { type: "max_turns", maxTurns: 3 },
    ]);
    expect(out).toBe("助手> 半句\n[错误] 连接断了\n助手> 这是\n[已取消]\n[已达到最大轮数 3，停止]\n");
  });

  it("step08：被长度上限截断的回复（stopReason length）多一行提示", async () => {
    const out = await render([
      { type: "text_delta", delta: "写到一半" },
      { type: "message", message: { role: "assistant", content: [{ type: "text", text: "写到一半" }], stopReason: "length" } },
    ]);
    expect(out).toBe("助手> 写到一半\n[提示] 回复达到长度上限，被截断了\n");
  });
});

describe("外来文字里的控制字符显示成看得见的写法（issue 22 第 9 条）", () => {
  // 清屏、改窗口标题、C1 的 CSI（0x9b）、回车覆盖本行：原样写到终端就会真的生效
  const HOSTILE = "\x1b[2J\x1b]0;pwned\x07\x9b31m\rX";
  const SHOWN = "\\x1b[2J\\x1b]0;pwned\\x07\\x9b31m\\x0dX";

  it("模型文字、推理、工具调用、工具结果、错误信息：一个控制字符也不原样输出；换行、制表符与 \\r\\n 照常", async () => {
    const out = await render([
      { type: "text_delta", delta: `答${HOSTILE}` },
      { type: "thinking_delta", delta: `想${HOSTILE}` },
      { type: "text_delta", delta: "a\tb\r\nc" },
      { type: "message", message: { role: "assistant", content: [{ type: "toolCall", id: "1", name: `t${HOSTILE}`, arguments: { x: HOSTILE } }], stopReason: "error", errorMessage: `HTTP 500：${HOSTILE}` } },
      { type: "message", message: { role: "toolResult", toolCallId: "1", toolName: `t${HOSTILE}`, content: HOSTILE } },
    ]);
    expect(out).not.toMatch(/[\x00-\x08\x0b-\x0c\x0e-\x1f\x7f-\x9f]/);
    expect(out).toContain(`助手> 答${SHOWN}`);
    expect(out).toContain(`思考> 想${SHOWN}`);
    expect(out).toContain("助手> a\tb\r\nc");
    expect(out).toContain(`[工具调用] t${SHOWN} {"x":"\\u001b[2J\\u001b]0;pwned\\u0007\\x9b31m\\r`);
    expect(out).toContain(`[错误] HTTP 500：${SHOWN}`);
    expect(out).toContain(`[工具结果] t${SHOWN} → ${SHOWN}`);
  });
});
