/**
 * 扩展弄坏了进程本身（issue 31 第 6 类）：关掉标准输入、同步跑很久挡住 Ctrl+C、
 * 导出了一个调用了也什么都不做的东西、交来一个发不出去的参数 Schema。
 * 每一种都是一行中文，说出是哪个扩展或工具；宿主照常往下走或干净地结束。
 */

import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";

import { ExtensionHost, loadExtension } from "../src/extensions.js";
import { createBuiltinTools } from "../src/tools/index.js";
import { cleanEnv, type CliResult, mainArgs, makeSandbox, removeSandbox, withoutProvider } from "./helpers/cli.js";
import { extensionScratch } from "./helpers/extension-scratch.js";

const { writeExtension, dir } = extensionScratch("harness-ext-process-");
afterEach(() => vi.restoreAllMocks());

/** 运行 main.ts，写进 input 但不关标准输入：像坐在终端前的人什么也没再按。只有宿主自己发现标准输入没了，进程才会结束。 */
function runWithOpenStdin(cwd: string, args: string[], input: string, timeoutMs = 30_000): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, mainArgs(cwd, args), { cwd, env: cleanEnv({ SCRIPTED_PROVIDER_CHUNK_DELAY_MS: "0" }), stdio: "pipe" });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error(`进程超过 ${timeoutMs}ms 没有结束（卡在提示符上了？）\nstdout:\n${stdout}\nstderr:\n${stderr}`));
    }, timeoutMs);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ stdout, stderr, code });
    });
    child.stdin.on("error", () => {});
    child.stdin.write(input);
  });
}

describe.skipIf(withoutProvider)("扩展关掉了标准输入", () => {
  it.each([
    ["工厂里", "export default () => { process.stdin.destroy(); };\n"],
    ["观察者里（回复途中）", `export default (pi) => pi.onEvent((event) => { if (event.type === "turn_end") process.stdin.destroy(); });\n`],
  ])("%s：说一句是标准输入被关了，然后像 Ctrl+D 一样干净地结束", async (_label, source) => {
    const sandbox = makeSandbox();
    try {
      fs.writeFileSync(path.join(sandbox, "closer.mjs"), source);
      const result = await runWithOpenStdin(sandbox, ["--extension", "closer.mjs"], "我叫小明\n");
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).toContain("标准输入被关掉了");
      expect(result.stdout).toContain("再见。");
      expect(result.stderr).not.toContain("    at ");
    } finally {
      removeSandbox(sandbox);
    }
  });
});

describe("同步跑很久的工具与观察者：事后说一声，那段时间里 Ctrl+C 没有反应", () => {
  // 时钟由测试控制：扩展「跑」多久，就把 performance.now 往前拨多少，不真的忙等
  const clock = { now: 0 };
  const advance = `globalThis.__harnessClock.now += `;
  const useClock = (): void => {
    clock.now = 0;
    (globalThis as Record<string, unknown>).__harnessClock = clock;
    vi.spyOn(performance, "now").mockImplementation(() => clock.now);
  };

  it("工具同步跑了 5 秒：一行 [警告]，说出工具、扩展与时长；结果照常", async () => {
    useClock();
    const file = writeExtension("busy-tool.mjs", `export default (pi) => pi.registerTool({ name: "busy", description: "", parameters: {}, execute: () => { ${advance}5000; return { content: "好了" }; } });\n`);
    const tools = createBuiltinTools();
    await loadExtension(file, new ExtensionHost(tools));
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    const result = await tools.execute({ type: "toolCall", id: "1", name: "busy", arguments: {} }, { cwd: dir() });
    expect(result.content).toBe("好了");
    expect(errors).toHaveBeenCalledTimes(1);
    expect(errors.mock.calls[0]?.[0]).toMatch(/^\[警告\] 工具 busy（扩展 busy-tool\.mjs）同步运行了 5\.0 秒.*Ctrl\+C/);
  });

  it("async 工具在第一个 await 之前同步跑了很久：同样报告", async () => {
    useClock();
    const file = writeExtension("busy-async.mjs", `export default (pi) => pi.registerTool({ name: "busy", description: "", parameters: {}, execute: async () => { ${advance}3000; await null; return { content: "好了" }; } });\n`);
    const tools = createBuiltinTools();
    await loadExtension(file, new ExtensionHost(tools));
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    await tools.execute({ type: "toolCall", id: "1", name: "busy", arguments: {} }, { cwd: dir() });
    expect(errors.mock.calls.map(([line]) => line)).toEqual([expect.stringMatching(/^\[警告\] 工具 busy（扩展 busy-async\.mjs）同步运行了 3\.0 秒/)]);
  });

  it("观察者同步跑了 2 秒：一行 [警告]，说出扩展；抛错的观察者照样报告自己的错", async () => {
    useClock();
    const file = writeExtension("busy-observer.mjs", `export default (pi) => { pi.onEvent(() => { ${advance}2000; }); pi.onEvent(() => { ${advance}1500; throw new Error("又慢又崩"); }); };\n`);
    const host = new ExtensionHost(createBuiltinTools());
    await loadExtension(file, host);
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    host.emit({ type: "abort" });
    const lines = errors.mock.calls.map(([line]) => String(line));
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^\[警告\] 观察者（扩展 busy-observer\.mjs）同步运行了 2\.0 秒/);
    expect(lines).toContain("[扩展错误] 又慢又崩（扩展 busy-observer.mjs）");
    expect(lines.some((line) => /^\[警告\] 观察者（扩展 busy-observer\.mjs）同步运行了 1\.5 秒/.test(line))).toBe(true);
  });

  it("不到 1 秒：什么也不说", async () => {
    useClock();
    const file = writeExtension("quick.mjs", `export default (pi) => { pi.onEvent(() => { ${advance}999; }); pi.registerTool({ name: "quick", description: "", parameters: {}, execute: () => { ${advance}999; return { content: "好" }; } }); };\n`);
    const tools = createBuiltinTools();
    const host = new ExtensionHost(tools);
    await loadExtension(file, host);
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    host.emit({ type: "abort" });
    await tools.execute({ type: "toolCall", id: "1", name: "quick", arguments: {} }, { cwd: dir() });
    expect(errors).not.toHaveBeenCalled();
  });
});

describe("默认导出调用了也什么都不做：加载时就拒绝", () => {
  it.each([
    ["async 生成器函数", "export default async function* (pi) { pi.registerTool(null); }\n", "一个 async 生成器函数"],
    ["生成器函数", "export default function* (pi) { pi.registerTool(null); }\n", "一个生成器函数"],
    ["class", "export default class Ext { constructor(pi) { pi.registerTool(null); } }\n", "一个 class"],
  ])("%s：一行说明要的是普通函数，什么也不注册", async (_label, source, kind) => {
    const file = writeExtension("odd.mjs", source);
    const tools = createBuiltinTools();
    const host = new ExtensionHost(tools);
    const error = await loadExtension(file, host).then(() => undefined, (reason: unknown) => reason);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toContain(`扩展 odd.mjs 默认导出的是${kind}`);
    expect((error as Error).message).toContain("export default (pi) =>");
    expect(host.loaded).toEqual([]);
    expect(tools.names()).toEqual(["calc", "read_file", "write", "edit", "bash"]);
  });

  it("普通函数、async 函数、箭头函数照常加载", async () => {
    for (const source of ["export default function (pi) {}\n", "export default async (pi) => {}\n", "export default (pi) => {}\n"]) {
      const host = new ExtensionHost(createBuiltinTools());
      await loadExtension(writeExtension(`ok-${Math.random()}.mjs`, source), host);
      expect(host.loaded).toHaveLength(1);
    }
  });
});

describe("发不出去的参数 Schema：注册时就拒绝，说出是哪个工具", () => {
  it.each([
    ["循环引用", `(() => { const p = { type: "object", properties: {} }; p.properties.self = p; return p; })()`, "循环引用"],
    ["BigInt", `{ type: "object", properties: { n: { type: "integer", maximum: 10n } } }`, "BigInt"],
    ["toJSON 会抛", `{ type: "object", toJSON() { throw new Error("不给看"); } }`, "不给看"],
  ])("%s：加载失败，什么也不注册", async (_label, parameters, reason) => {
    const file = writeExtension("schema.mjs", `export default (pi) => pi.registerTool({ name: "bad_schema", description: "", parameters: ${parameters}, execute: () => ({ content: "" }) });\n`);
    const tools = createBuiltinTools();
    await expect(loadExtension(file, new ExtensionHost(tools))).rejects.toThrow(/^工具 bad_schema 的 parameters 转不成 JSON/);
    await expect(loadExtension(file, new ExtensionHost(createBuiltinTools()))).rejects.toThrow(reason);
    expect(tools.names()).toEqual(["calc", "read_file", "write", "edit", "bash"]);
  });
});
