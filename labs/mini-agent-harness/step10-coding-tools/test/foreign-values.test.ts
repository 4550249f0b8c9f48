/**
 * 扩展抛出的不一定是 Error（issue 31 第 5 类）：Object.create(null)、message 一读就抛的 Error、
 * 每个陷阱都抛的 Proxy、Symbol。宿主在自己的 catch 块里描述它们时不能再崩一次：
 * 加载、工具、观察者三处都说出一行，宿主照常往下走。
 */

import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";

import { describeError } from "../src/guards/shown.js";
import { ExtensionHost, loadExtension } from "../src/extensions.js";
import { createFakeModel } from "../src/fake-model.js";
import { ReplyBuilder } from "../src/providers/reply.js";
import type { Rule } from "../src/rules.js";
import { createBuiltinTools } from "../src/tools/index.js";
import type { StreamEvent } from "../src/types.js";
import { makeSandbox, removeSandbox, withoutProvider } from "./helpers/cli.js";
import { runCli } from "./helpers/in-process.js";
import { extensionScratch } from "./helpers/extension-scratch.js";

const { writeExtension, dir } = extensionScratch("harness-foreign-");
afterEach(() => vi.restoreAllMocks());

/** 扩展源码里的几种坏值：[说明, 造出它的表达式]。 */
const HOSTILE: Array<[string, string]> = [
  ["Object.create(null)", "Object.create(null)"],
  ["message 一读就抛的 Error", `Object.defineProperty(new Error("x"), "message", { get() { throw new Error("getter 也崩了"); } })`],
  ["每个陷阱都抛的 Proxy", `new Proxy({}, new Proxy({}, { get: () => () => { throw new Error("陷阱"); } }))`],
  ["toString 会抛的对象", `{ toString() { throw new Error("toString 崩了"); } }`],
  ["Symbol", `Symbol("坏")`],
];

describe("describeError：任何值都说成一句话，自己从不抛", () => {
  it.each(HOSTILE)("%s", (_label, expression) => {
    const value: unknown = new Function(`return ${expression};`)();
    const text = describeError(value);
    expect(typeof text).toBe("string");
    expect(text.length).toBeGreaterThan(0);
  });

  it("平常的值照旧：Error 说 message，字符串原样，Symbol 说出名字", () => {
    expect(describeError(new Error("出错了"))).toBe("出错了");
    expect(describeError("纯文字")).toBe("纯文字");
    expect(describeError(42)).toBe("42");
    expect(describeError(Symbol("坏"))).toBe("Symbol(坏)");
    expect(describeError(Object.create(null))).toBe("（无法转成文字的值：object）");
  });
});

describe.each(HOSTILE)("扩展抛出 %s", (_label, expression) => {
  it("工厂里抛：加载失败（被拒绝），什么也不留下", async () => {
    const file = writeExtension("factory.mjs", `export default () => { throw ${expression}; };\n`);
    const tools = createBuiltinTools();
    await expect(loadExtension(file, new ExtensionHost(tools))).rejects.toBeDefined();
    expect(tools.names()).toEqual(["calc", "read_file", "write", "edit", "bash"]);
  });

  it("工具里抛：一条错误结果", async () => {
    const file = writeExtension("tool.mjs", `export default (pi) => pi.registerTool({ name: "t", description: "", parameters: {}, execute: () => { throw ${expression}; } });\n`);
    const tools = createBuiltinTools();
    await loadExtension(file, new ExtensionHost(tools));
    const result = await tools.execute({ type: "toolCall", id: "1", name: "t", arguments: {} }, { cwd: dir() });
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(/^工具 t 出错：./);
  });

  it("观察者里抛（同步与异步）：一行 [扩展错误]，说出扩展名", async () => {
    const file = writeExtension("observer.mjs", `export default (pi) => { pi.onEvent(() => { throw ${expression}; }); pi.onEvent(async () => { throw ${expression}; }); };\n`);
    const host = new ExtensionHost(createBuiltinTools());
    await loadExtension(file, host);
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    host.emit({ type: "abort" });
    await vi.waitFor(() => expect(errors).toHaveBeenCalledTimes(2));
    for (const [line] of errors.mock.calls) expect(line).toMatch(/^\[扩展错误\] .+（扩展 observer\.mjs）$/);
  });
});

describe.skipIf(withoutProvider)("命令行：三处都是一行，进程照常走完", () => {
  it("工厂抛 Object.create(null)、工具抛 Proxy、观察者抛 Symbol", async () => {
    const sandbox = makeSandbox();
    try {
      fs.writeFileSync(path.join(sandbox, "bad-factory.mjs"), "export default () => { throw Object.create(null); };\n");
      const proxy = `new Proxy({}, new Proxy({}, { get: () => () => { throw new Error("陷阱"); } }))`;
      fs.writeFileSync(path.join(sandbox, "bad-tool.mjs"), `export default (pi) => pi.registerTool({ name: "upper", description: "", parameters: { type: "object" }, execute: () => { throw ${proxy}; } });\n`);
      fs.writeFileSync(path.join(sandbox, "bad-observer.mjs"), `export default (pi) => pi.onEvent((event) => { if (event.type === "turn_start") throw Symbol("坏"); });\n`);
      const args = ["--extension", "bad-factory.mjs", "--extension", "bad-tool.mjs", "--extension", "bad-observer.mjs"];
      const result = await runCli(sandbox, args, "把 abc 转成大写\n");
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).toContain("加载扩展失败 bad-factory.mjs：（无法转成文字的值：object）");
      expect(result.stderr).toContain("[扩展错误] Symbol(坏)（扩展 bad-observer.mjs）");
      expect(result.stdout).toContain("[工具结果] upper → 工具 upper 出错：（无法转成文字的值：object）");
      expect(result.stderr).not.toContain("    at ");
      expect(result.stdout).toContain("再见。");
    } finally {
      removeSandbox(sandbox);
    }
  });
});

describe("剧本规则（学习者在 src/rules.ts 里加的）抛出坏值", () => {
  it.each(HOSTILE)("%s：一条 error 消息，不冲出 StreamFn", async (_label, expression) => {
    const value: unknown = new Function(`return ${expression};`)();
    const rules: Rule[] = [{ on: "", reply: () => { throw value; } }];
    const events: StreamEvent[] = [];
    for await (const event of createFakeModel({ rules })({ messages: [{ role: "user", content: "随便" }] })) events.push(event);
    expect(events.at(-1)).toMatchObject({ type: "done", message: { stopReason: "error", errorMessage: expect.stringMatching(/^剧本规则出错：./) } });
  });
});

describe("拼工具参数时 JSON.parse 抛出坏值（扩展换掉了 JSON.parse）", () => {
  it.each(HOSTILE)("%s：这一轮以一条点名工具的 error 结束，不冲出适配器", (_label, expression) => {
    const value: unknown = new Function(`return ${expression};`)();
    const reply = new ReplyBuilder([]);
    const draft = reply.tool("0", "c1");
    draft.name = "calc";
    reply.toolArgs(draft, '{"expression":"1+1"}');
    vi.spyOn(JSON, "parse").mockImplementationOnce(() => {
      throw value;
    });
    const message = reply.finish("stop");
    expect(message).toMatchObject({ stopReason: "error", errorMessage: expect.stringMatching(/^工具 calc 的参数不是合法的 JSON：./) });
  });
});
