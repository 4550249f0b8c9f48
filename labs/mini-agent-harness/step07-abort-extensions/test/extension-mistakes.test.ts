/**
 * 学习者写扩展时常犯的错误（issue 12 的第 1–7 条）在 step07 里的样子。
 * step07 的扩展宿主（src/extensions.ts）、Ctrl+C 处理与循环是书里逐行讲解的代码，
 * 第 1–4、6、7 条的防线不改它们就加不上，所以从 step08 起才有（README 的「已知局限」说明了原因）；
 * 不碰被引用代码就能修的，这里修：工具返回了不合格的结果（第 5 条）、没有 parameters 的工具被调用时不再崩。
 */

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

import { runAgentLoop } from "../src/agent-loop.js";
import { createBuiltinTools } from "../src/tools/index.js";
import type { ToolDefinition } from "../src/tools/types.js";
import type { AssistantMessage, HarnessEvent, StreamFn } from "../src/types.js";

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "harness-ext-mistakes-"));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true, maxRetries: 10 }));

/** 扩展写出来的工具不受类型检查保护：这里故意绕过类型，造出学习者常写错的样子。 */
const looseTool = (tool: Record<string, unknown>): ToolDefinition => tool as unknown as ToolDefinition;

describe("第 5 条：工具返回了不合格的结果", () => {
  it.each([
    ["undefined", () => undefined, "收到的是 undefined（是不是忘了 return？）"],
    ["一个数字", () => 42, "收到的是 42"],
    ["content 不是字符串", () => ({ content: 1 }), '收到的是 {"content":1}'],
    ["被拒绝的 promise", async () => Promise.reject(new Error("异步失败")), "工具 t 出错：异步失败"],
  ])("execute 返回%s：变成一条诚实的错误结果", async (_label, execute, message) => {
    const tools = createBuiltinTools();
    tools.register(looseTool({ name: "t", description: "", parameters: {}, execute }));
    const result = await tools.execute({ type: "toolCall", id: "1", name: "t", arguments: {} }, { cwd: dir });
    expect(result).toMatchObject({ role: "toolResult", isError: true });
    expect(result.content).toContain(message);
  });

  it("在循环里：工具返回 undefined 之后，循环照常进入下一轮", async () => {
    const tools = createBuiltinTools();
    tools.register(looseTool({ name: "t", description: "", parameters: {}, execute: () => undefined }));
    const replies: AssistantMessage[] = [
      { role: "assistant", content: [{ type: "toolCall", id: "c1", name: "t", arguments: {} }], stopReason: "toolUse" },
      { role: "assistant", content: [{ type: "text", text: "好的" }], stopReason: "stop" },
    ];
    const streamFn: StreamFn = async function* () {
      yield { type: "done", message: replies.shift()! };
    };
    const seen: HarnessEvent[] = [];
    for await (const event of runAgentLoop({ streamFn, context: { messages: [] }, tools, toolContext: { cwd: dir } })) seen.push(event);
    expect(seen.map((event) => event.type)).toEqual(["turn_start", "message", "tool_call", "message", "turn_end", "turn_start", "message", "turn_end"]);
  });
});

describe("第 4 条（step07 能做到的部分）：没有 parameters 的工具", () => {
  it("被调用时变成一条错误结果，而不是让宿主崩掉（注册时就拒绝要到 step08）", async () => {
    const tools = createBuiltinTools();
    tools.register(looseTool({ name: "t", description: "", execute: () => ({ content: "ok" }) }));
    const result = await tools.execute({ type: "toolCall", id: "1", name: "t", arguments: {} }, { cwd: dir });
    expect(result.isError).toBe(true);
    expect(result.content).toBe("工具 t 没有 parameters（参数的 JSON Schema），无法校验参数");
  });
});
