import { describe, expect, it } from "vitest";

import { renderStream } from "../src/render.js";
import type { StreamEvent } from "../src/types.js";

async function render(events: StreamEvent[]): Promise<{ out: string; stopReason: string }> {
  let out = "";
  async function* stream(): AsyncGenerator<StreamEvent> {
    yield* events;
  }
  const message = await renderStream(stream(), (text) => (out += text));
  return { out, stopReason: message.stopReason };
}

describe("renderStream", () => {
  it("边收边显示，结束时换行，返回 done 里的消息", async () => {
    const result = await render([
      { type: "text_delta", delta: "你好" },
      { type: "text_delta", delta: "，小明" },
      { type: "done", message: { role: "assistant", content: [{ type: "text", text: "你好，小明" }], stopReason: "stop" } },
    ]);
    expect(result).toEqual({ out: "助手> 你好，小明\n", stopReason: "stop" });
  });

  it("失败显示成一行错误，不抛异常", async () => {
    const result = await render([
      { type: "text_delta", delta: "半句" },
      { type: "done", message: { role: "assistant", content: [{ type: "text", text: "半句" }], stopReason: "error", errorMessage: "连接断了" } },
    ]);
    expect(result).toEqual({ out: "助手> 半句\n[错误] 连接断了\n", stopReason: "error" });
  });

  it("流没有给出 done：当作一次失败", async () => {
    const result = await render([{ type: "text_delta", delta: "啊" }]);
    expect(result).toEqual({ out: "助手> 啊\n[错误] 模型流没有给出结束事件（done）\n", stopReason: "error" });
  });
});
