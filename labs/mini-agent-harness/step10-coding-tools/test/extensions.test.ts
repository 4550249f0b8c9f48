import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";

import { ExtensionHost, loadExtension, withExtensions } from "../src/extensions.js";
import { createBuiltinTools } from "../src/tools/index.js";
import type { HarnessEvent } from "../src/types.js";
import { stepRoot } from "./helpers/cli.js";
import { extensionScratch } from "./helpers/extension-scratch.js";

const scratch = extensionScratch("harness-ext-");
const { writeExtension } = scratch;
afterEach(() => vi.restoreAllMocks());

async function* from(events: HarnessEvent[]): AsyncGenerator<HarnessEvent> {
  yield* events;
}

describe("loadExtension", () => {
  it("加载 extensions/logger.ts：注册 upper，记下文件名", async () => {
    const tools = createBuiltinTools();
    const host = new ExtensionHost(tools);
    await loadExtension(path.join(stepRoot, "extensions", "logger.ts"), host);
    expect(tools.names()).toEqual(["calc", "read_file", "write", "edit", "bash", "upper"]);
    expect(host.loaded).toEqual(["logger.ts"]);
    const result = await tools.execute({ type: "toolCall", id: "1", name: "upper", arguments: { text: "abc" } }, { cwd: scratch.dir() });
    expect(result.content).toBe("ABC");
  });

  it("没有默认导出函数：抛出说明清楚的错误，什么也不注册", async () => {
    const file = writeExtension("bad.mjs", "export const x = 1;\n");
    const host = new ExtensionHost(createBuiltinTools());
    await expect(loadExtension(file, host)).rejects.toThrow(`扩展 ${file} 必须默认导出一个函数`);
    expect(host.loaded).toEqual([]);
  });

  it("注册与内置工具同名的工具：加载失败，报 工具名重复", async () => {
    const file = writeExtension("dup.mjs", `export default (pi) => pi.registerTool({ name: "calc", description: "", parameters: {}, execute: () => ({ content: "" }) });\n`);
    await expect(loadExtension(file, new ExtensionHost(createBuiltinTools()))).rejects.toThrow("工具名重复：calc");
  });

  it("异步工厂会被 await", async () => {
    const file = writeExtension("async.mjs", `export default async (pi) => { await new Promise((r) => setTimeout(r, 5)); pi.registerTool({ name: "later", description: "", parameters: {}, execute: () => ({ content: "ok" }) }); };\n`);
    const tools = createBuiltinTools();
    await loadExtension(file, new ExtensionHost(tools));
    expect(tools.names()).toContain("later");
  });

  it("文件不存在：抛错", async () => {
    await expect(loadExtension(path.join(scratch.dir(), "missing.ts"), new ExtensionHost(createBuiltinTools()))).rejects.toThrow();
  });
});

describe("ExtensionHost.emit 与 withExtensions", () => {
  it("观察者抛异常：打印 [扩展错误]，后面的观察者照常收到事件", () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    const host = new ExtensionHost(createBuiltinTools());
    const seen: string[] = [];
    host.onEvent(() => {
      throw new Error("我崩了");
    });
    host.onEvent((event) => seen.push(event.type));
    host.emit({ type: "abort" });
    expect(errors).toHaveBeenCalledWith("[扩展错误] 我崩了");
    expect(seen).toEqual(["abort"]);
  });

  it("先交给扩展，再交给下游；事件原样通过", async () => {
    const host = new ExtensionHost(createBuiltinTools());
    const order: string[] = [];
    host.onEvent((event) => order.push(`扩展:${event.type}`));
    const input: HarnessEvent[] = [{ type: "turn_start", turn: 1 }, { type: "abort" }];
    const output: HarnessEvent[] = [];
    for await (const event of withExtensions(from(input), host)) {
      order.push(`下游:${event.type}`);
      output.push(event);
    }
    expect(output).toEqual(input);
    expect(order).toEqual(["扩展:turn_start", "下游:turn_start", "扩展:abort", "下游:abort"]);
  });
});
