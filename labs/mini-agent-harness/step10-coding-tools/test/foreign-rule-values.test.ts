/**
 * 学习者自己的代码抛出的不一定是 Error（issue 31 第 5 类）：src/rules.ts 里加的规则、自己写的工具，
 * 可能抛出 Object.create(null)、message 一读就抛的 Error、陷阱会抛的 Proxy、Symbol。
 * 假模型与工具注册表描述它们时不能再崩一次：一条 error 消息、一条错误结果，循环照常往下走。
 */
import { describe, expect, it } from "vitest";

import { createFakeModel } from "../src/fake-model.js";
import type { Rule } from "../src/rules.js";
import { ToolRegistry } from "../src/tools/types.js";
import type { StreamEvent } from "../src/types.js";
import { HOSTILE_VALUES } from "./helpers/hostile-values.js";

describe.each(HOSTILE_VALUES)("抛出的是 %s", (_label, make) => {
  it("剧本规则里抛：一条「剧本规则出错」的 error 消息，不冲出 StreamFn", async () => {
    const rules: Rule[] = [{ on: "", reply: () => { throw make(); } }];
    const events: StreamEvent[] = [];
    for await (const event of createFakeModel({ rules })({ messages: [{ role: "user", content: "随便" }] })) events.push(event);
    expect(events.at(-1)).toMatchObject({ type: "done", message: { stopReason: "error", errorMessage: expect.stringMatching(/^剧本规则出错：./) } });
  });

  it("工具里抛：一条「工具 t 出错」的错误结果", async () => {
    const registry = new ToolRegistry();
    registry.register({ name: "t", description: "", parameters: { type: "object", properties: {} }, execute: () => { throw make(); } });
    const result = await registry.execute({ type: "toolCall", id: "c1", name: "t", arguments: {} }, { cwd: "." });
    expect(result).toMatchObject({ isError: true, content: expect.stringMatching(/^工具 t 出错：./) });
  });
});
