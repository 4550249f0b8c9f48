/**
 * 真实服务会拒收的工具名与工具数量（issue 22 第 6 条）。
 * 规矩取几家里最严的：OpenAI 要求名字匹配 ^[a-zA-Z0-9_-]{1,64}$、一次最多 128 个工具（出处见 docs/8.6）。
 * 名字在注册时就检查（说出扩展、规矩，给一个 ASCII 名字的建议）；数量在构造请求时检查。
 */
import { describe, expect, it } from "vitest";

import { ExtensionHost, loadExtension } from "../src/extensions.js";
import { buildAnthropicRequest } from "../src/providers/anthropic-messages.js";
import { buildOpenAIRequest, createOpenAIStream } from "../src/providers/openai-completions.js";
import { createBuiltinTools } from "../src/tools/index.js";
import type { ToolSpec } from "../src/types.js";
import { extensionScratch } from "./helpers/extension-scratch.js";
import { CALC, collect, HELLO, KEY } from "./helpers/providers.js";
import { rawServers } from "./helpers/raw-server.js";

const { writeExtension } = extensionScratch("harness-tool-names-");
const serve = rawServers();

describe("工具名在注册时按最严的规矩检查", () => {
  it.each([
    ["带空格", "my tool", "my_tool"],
    ["中文与 emoji", "工具😀", "my_tool"],
    ["开头有空格", " calc", "calc"],
    ["点号", "math.add", "math_add"],
    ["200 个字符", "a".repeat(200), "a".repeat(64)],
  ])("%s：加载失败，说出规矩与建议的名字，什么也不注册", async (_label, name, suggestion) => {
    const tool = `{ name: ${JSON.stringify(name)}, description: "", parameters: { type: "object" }, execute: () => ({ content: "" }) }`;
    const file = writeExtension("named.mjs", `export default (pi) => pi.registerTool(${tool});\n`);
    const tools = createBuiltinTools();
    const failure = loadExtension(file, new ExtensionHost(tools));
    await expect(failure).rejects.toThrow(`工具名 ${JSON.stringify(name)} 不合规矩`);
    await expect(failure).rejects.toThrow("^[a-zA-Z0-9_-]{1,64}$");
    await expect(failure).rejects.toThrow(`请换一个 ASCII 名字，比如 ${suggestion}`);
    expect(tools.names()).toEqual(["calc", "read_file", "write", "edit", "bash"]);
  });

  it("合规矩的名字照常注册：字母、数字、_ 与 -，正好 64 个字符也行", async () => {
    const tools = createBuiltinTools();
    const host = new ExtensionHost(tools);
    const names = ["upper", "get-weather_2", "a".repeat(64)];
    for (const name of names) host.registerTool({ name, description: "", parameters: { type: "object" }, execute: () => ({ content: "" }) });
    expect(tools.names()).toEqual(["calc", "read_file", "write", "edit", "bash", ...names]);
  });
});

describe("工具数量在构造请求时检查", () => {
  const many = (n: number): ToolSpec[] => Array.from({ length: n }, (_, i) => ({ ...CALC, name: `t${i}` }));

  it("128 个照常发出；129 个两种协议都拒绝构造请求", () => {
    const config = { baseUrl: "http://127.0.0.1:1", apiKey: "", model: "m" };
    expect((buildOpenAIRequest(config, { ...HELLO, tools: many(128) }).tools as unknown[]).length).toBe(128);
    expect(() => buildOpenAIRequest(config, { ...HELLO, tools: many(129) })).toThrow("129 个工具，超过模型服务一次最多接受的 128 个");
    expect(() => buildAnthropicRequest(config, { ...HELLO, tools: many(129) })).toThrow("超过模型服务一次最多接受的 128 个");
  });

  it("10000 个工具：这一轮以一条「构造请求失败」结束，请求根本没有发出", async () => {
    const server = await serve((_req, res) => res.end());
    const { message } = await collect(createOpenAIStream({ baseUrl: server.origin, apiKey: KEY, model: "m" }), { ...HELLO, tools: many(10_000) });
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toMatch(/^构造请求失败：注册了 10000 个工具，超过模型服务一次最多接受的 128 个/);
    expect(server.requests).toEqual([]);
  });
});
