import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";

import { createFakeModel, tokenize } from "../src/fake-model.js";
import type { Rule } from "../src/rules.js";
import type { AssistantMessage, Context, StreamEvent } from "../src/types.js";

async function collect(stream: AsyncIterable<StreamEvent>): Promise<{ deltas: string[]; done: AssistantMessage }> {
  const deltas: string[] = [];
  let done: AssistantMessage | undefined;
  for await (const event of stream) {
    if (event.type === "text_delta") deltas.push(event.delta);
    else if (event.type === "done") done = event.message;
  }
  if (!done) throw new Error("没有 done 事件");
  return { deltas, done };
}

const say = (text: string): Context => ({ messages: [{ role: "user", content: text }] });

describe("tokenize", () => {
  it("汉字两个一组，英文单词连同前面的空格一组", () => {
    expect(tokenize("这是一段很长")).toEqual(["这是", "一段", "很长"]);
    expect(tokenize("我会一个 token 一个")).toEqual(["我会", "一个", " token", " ", "一个"]);
    expect(tokenize("")).toEqual([]);
  });
});

describe("FakeModel", () => {
  it("按剧本流式吐出回复，最后以 stop 收尾", async () => {
    const { deltas, done } = await collect(createFakeModel()(say("我叫小明"), {}));
    expect(deltas.join("")).toBe("你好，小明！我记住了。");
    expect(done.stopReason).toBe("stop");
  });

  it("回复依赖更早的历史：模型看得见整个上下文", async () => {
    const context: Context = {
      messages: [
        { role: "user", content: "我叫小红" },
        { role: "assistant", content: [{ type: "text", text: "你好" }], stopReason: "stop" },
        { role: "user", content: "我叫什么" },
      ],
    };
    const { done } = await collect(createFakeModel()(context));
    expect(done.content).toEqual([{ type: "text", text: "你叫小红。" }]);
  });

  it("失败不抛异常：已吐出的文字保留，stopReason 为 error 并带 errorMessage", async () => {
    const { deltas, done } = await collect(createFakeModel()(say("出个错")));
    expect(deltas.join("")).toBe("好的，我这就开始回答");
    expect(done.stopReason).toBe("error");
    expect(done.errorMessage).toContain("模拟的模型服务错误");
  });

  it("剧本规则自己抛异常，也编码成 error 消息", async () => {
    const rules: Rule[] = [{ on: "", reply: () => { throw new Error("规则坏了"); } }];
    const { done } = await collect(createFakeModel({ rules })(say("随便")));
    expect(done).toMatchObject({ stopReason: "error", errorMessage: "剧本规则出错：规则坏了" });
  });

  it("工具调用规则：以 toolUse 收尾，编号按上下文里已有的调用递增", async () => {
    const { done } = await collect(createFakeModel()(say("帮我算 17*38")));
    expect(done.stopReason).toBe("toolUse");
    expect(done.content.at(-1)).toEqual({ type: "toolCall", id: "call_1", name: "calc", arguments: { expression: "17*38" } });
  });

  it("已经取消的 signal：不吐任何 token，立刻以 aborted 收尾", async () => {
    const controller = new AbortController();
    controller.abort();
    const { deltas, done } = await collect(createFakeModel({ delayMs: 1000 })(say("说个长的"), { signal: controller.signal }));
    expect(deltas).toEqual([]);
    expect(done).toEqual({ role: "assistant", content: [], stopReason: "aborted" });
  });

  it("吐字途中取消：带着已生成的部分内容以 aborted 收尾，而且不必等完这一觉", async () => {
    const controller = new AbortController();
    const stream = createFakeModel({ delayMs: 60_000 })(say("说个长的"), { signal: controller.signal });
    const iterator = stream[Symbol.asyncIterator]();
    const pending = iterator.next();
    controller.abort();
    // 如果 sleep 不响应 abort，这里要等 60 秒，测试会超时失败。
    const first = await pending;
    expect(first.value).toEqual({ type: "done", message: { role: "assistant", content: [], stopReason: "aborted" } });
  });

  it("同一个 signal 上跑完很多次 sleep，不留下任何 abort 监听器", async () => {
    const controller = new AbortController();
    const rules: Rule[] = [{ on: "", reply: "一二三四五六七八九十".repeat(5) }];
    for (let i = 0; i < 10; i++) {
      await collect(createFakeModel({ rules, delayMs: 1 })(say("x"), { signal: controller.signal }));
    }
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });
});
