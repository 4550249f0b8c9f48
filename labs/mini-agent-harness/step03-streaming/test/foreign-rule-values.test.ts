/**
 * 学习者自己的代码抛出的不一定是 Error：src/rules.ts 里加的规则（回复函数），
 * 可能抛出 Object.create(null)、message 一读就抛的 Error、陷阱会抛的 Proxy、Symbol。
 * 假模型描述它们时不能再崩一次：一条「剧本规则出错」的 error 消息，对话照常往下走。
 */
import { describe, expect, it } from "vitest";

import { createFakeModel } from "../src/fake-model.js";
import type { Rule } from "../src/rules.js";
import type { StreamEvent } from "../src/types.js";
import { HOSTILE_VALUES } from "./helpers/hostile-values.js";

describe.each(HOSTILE_VALUES)("抛出的是 %s", (_label, make) => {
  it("剧本规则里抛：一条「剧本规则出错」的 error 消息，不冲出 StreamFn", async () => {
    const rules: Rule[] = [{ on: "", reply: () => { throw make(); } }];
    const events: StreamEvent[] = [];
    for await (const event of createFakeModel({ rules })({ messages: [{ role: "user", content: "随便" }] })) events.push(event);
    expect(events.at(-1)).toMatchObject({ type: "done", message: { stopReason: "error", errorMessage: expect.stringMatching(/^剧本规则出错：./) } });
  });
});
