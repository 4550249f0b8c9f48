import { describe, expect, it } from "vitest";

import { createFakeModel } from "../src/fake-model.js";
import { after, pickRule, RULES, triggerOf, type Rule } from "../src/rules.js";
import type { Context } from "../src/types.js";

const say = (text: string): Context => ({ messages: [{ role: "user", content: text }] });
const textOf = (context: Context): string => createFakeModel()(context).content.map((part) => part.text).join("");

describe("剧本规则", () => {
  it("第一条命中的规则生效：「我叫什么」排在「我叫」之前", () => {
    expect(pickRule(RULES, say("我叫什么"))?.on).toBe("我叫什么");
    expect(pickRule(RULES, say("我叫小明"))?.on).toBe("我叫");
  });

  it("没有命中任何规则时落到兜底规则", () => {
    expect(pickRule(RULES, say("今天天气不错"))?.on).toBe("");
    expect(textOf(say("今天天气不错"))).toContain("这句话不在剧本里");
  });

  it("触发文本只看最后一条消息，而且只看用户消息", () => {
    expect(triggerOf({ messages: [] })).toBe("");
    expect(triggerOf({ messages: [{ role: "user", content: "a" }, { role: "assistant", content: [{ type: "text", text: "b" }] }] })).toBe("");
  });

  it("after 取标记之后的文字", () => {
    expect(after("我叫 小明 ", "我叫")).toBe("小明");
    expect(after("没有标记", "我叫")).toBe("");
  });
});

describe("FakeModel", () => {
  it("回答要用到更早的历史：只给最后一句答不上，给整个上下文就答得上", () => {
    expect(textOf(say("我叫什么"))).toBe("你还没告诉我你的名字。");
    const context: Context = {
      messages: [
        { role: "user", content: "我叫小红" },
        { role: "assistant", content: [{ type: "text", text: "你好，小红！我记住了。" }] },
        { role: "user", content: "我叫什么" },
      ],
    };
    expect(textOf(context)).toBe("你叫小红。");
  });

  it("改过名字时，记得的是最近的那个", () => {
    const context: Context = {
      messages: [
        { role: "user", content: "我叫小红" },
        { role: "user", content: "我叫小蓝" },
        { role: "user", content: "我叫什么" },
      ],
    };
    expect(textOf(context)).toBe("你叫小蓝。");
  });

  it("可以换一套剧本；剧本为空也不会崩溃", () => {
    const rules: Rule[] = [{ on: "", reply: (context) => `共 ${context.messages.length} 条` }];
    expect(createFakeModel({ rules })(say("x")).content[0]?.text).toBe("共 1 条");
    expect(createFakeModel({ rules: [] })(say("x")).content[0]?.text).toBe("（剧本是空的）");
  });
});
