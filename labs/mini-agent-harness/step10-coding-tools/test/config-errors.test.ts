/**
 * 配置错误不是网络错误：地址与密钥写错，启动时就一句话点名是哪个设置，退出码 2，
 * 不发请求、不重试（src/providers/guards/settings.ts）。密钥本身从不打印。
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it, type TestContext } from "vitest";

import { createAnthropicStream } from "../src/providers/anthropic-messages.js";
import { createProviderStream, resolveProviderConfig } from "../src/providers/index.js";
import { createOpenAIStream } from "../src/providers/openai-completions.js";
import { collect } from "./helpers/providers.js";
import { makeSandbox, removeSandbox } from "./helpers/cli.js";
import { runCli } from "./helpers/in-process.js";
import { rawServers } from "./helpers/raw-server.js";

const serve = rawServers();
const KEY = "sk-config-TEST-0123456789";

function problemOf(env: Record<string, string>): string {
  const resolved = resolveProviderConfig(env);
  if (resolved.ok) throw new Error(`应当拒绝：${JSON.stringify(env)}`);
  return resolved.error;
}

describe("地址写错：点名 HARNESS_BASE_URL，说清楚哪里错", () => {
  it.each([
    ["全角冒号", "https：//api.example.com/v1", ["HARNESS_BASE_URL", "「：」", "全角", "半角"]],
    ["全角斜杠", "https://api.example.com／v1", ["HARNESS_BASE_URL", "「／」"]],
    ["两头的引号", '"https://api.example.com/v1"', ["HARNESS_BASE_URL", "引号"]],
    ["中文引号", "“https://api.example.com/v1”", ["HARNESS_BASE_URL", "引号"]],
    ["没有协议", "api.example.com/v1", ["HARNESS_BASE_URL", "http:// 或 https://"]],
    ["主机名当成了协议", "localhost:11434/v1", ["HARNESS_BASE_URL", "http:// 或 https://"]],
    ["账号口令", "https://me:s3cret@api.example.com/v1", ["HARNESS_BASE_URL", "user:password@", "HARNESS_API_KEY"]],
    ["行尾的注释", "http://127.0.0.1:11434/v1 # 注释：本机的 Ollama", ["HARNESS_BASE_URL", "#", "注释"]],
    ["零宽空格", "https://api.example.com/v1\u200b", ["HARNESS_BASE_URL", "U+200B"]],
  ])("%s", (_label, url, parts) => {
    const error = problemOf({ HARNESS_BASE_URL: url, HARNESS_API_KEY: KEY });
    for (const part of parts) expect(error).toContain(part);
    expect(error).not.toContain("s3cret");
    expect(error).not.toContain("\n");
  });

  it("正常的地址照常通过：本机、带路径、带查询串、末尾斜杠、中文域名", () => {
    for (const url of ["http://127.0.0.1:11434/v1", "https://api.example.com/v1/", "https://x.example/v1?api-version=2024-01-01", "https://例子.测试/v1", "http://[::1]:8080"]) {
      expect(resolveProviderConfig({ HARNESS_BASE_URL: url }).ok).toBe(true);
    }
  });
});

describe("密钥写错：点名它来自哪个变量、第几个字符，不打印密钥", () => {
  it.each([
    ["零宽空格", "HARNESS_API_KEY", `${KEY}\u200b`, ["第 26 个字符", "U+200B", "看不见"]],
    ["中文字符", "OPENAI_API_KEY", `sk-中文-${KEY}`, ["OPENAI_API_KEY", "第 4 个字符", "「中」"]],
    ["全角字符", "HARNESS_API_KEY", `sk－${KEY}`, ["第 3 个字符", "全角"]],
    ["中间的空格", "HARNESS_API_KEY", `sk-abc ${KEY}`, ["第 7 个字符", "空白"]],
    ["两头的引号", "HARNESS_API_KEY", `"${KEY}"`, ["引号"]],
  ])("%s", (_label, name, key, parts) => {
    const error = problemOf({ [name]: key });
    expect(error.startsWith(name)).toBe(true);
    for (const part of parts) expect(error).toContain(part);
    expect(error).not.toContain(KEY);
  });

  it("正常的密钥照常通过（含 - _ . 等符号）", () => {
    expect(resolveProviderConfig({ HARNESS_API_KEY: "sk-proj_AB.cd-0123456789" }).ok).toBe(true);
  });
});

describe("命令行：启动时就拒绝，退出码 2，不发请求、不建会话", () => {
  function sandbox(test: TestContext): string {
    const dir = makeSandbox();
    test.onTestFinished(() => removeSandbox(dir));
    return dir;
  }

  it("地址末尾的「# 注释」：一行中文点名 HARNESS_BASE_URL；服务器一个请求也没收到", async (test) => {
    const server = await serve((_req, res) => res.end());
    const dir = sandbox(test);
    const result = await runCli(dir, [], "你好\n", { HARNESS_BASE_URL: `${server.origin}/v1 # 注释`, HARNESS_API_KEY: KEY });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    const lines = result.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain("HARNESS_BASE_URL");
    expect(lines[0]).not.toContain("网络错误");
    expect(server.requests).toEqual([]);
    expect(fs.existsSync(path.join(dir, ".sessions"))).toBe(false);
  });
});

describe("在代码里造的设置（不经过环境变量）：同样的检查，一条「构造请求失败」，一个请求都不发", () => {
  // 服务器真的在听：有一个请求发出去，requests 里就会有它
  const cases = (origin: string): Array<[string, string, string[]]> => [
    ["全角冒号", origin.replace("://", "：//"), ["「：」", "全角"]],
    ["没有协议", `${origin.replace("http://", "")}/v1`, ["http:// 或 https://"]],
    ["账号口令", origin.replace("://", "://me:s3cret@"), ["user:password@"]],
    ["两头的引号", `"${origin}/v1"`, ["引号"]],
    ["零宽空格", `${origin}/v1\u200b`, ["U+200B"]],
    ["行尾的注释", `${origin}/v1 # 本机`, ["#"]],
  ];

  it.each(["openai", "anthropic"] as const)("%s：每一种写错的 baseUrl", async (api) => {
    const server = await serve((_req, res) => res.end());
    for (const [label, baseUrl, parts] of cases(server.origin)) {
      const create = api === "anthropic" ? createAnthropicStream : createOpenAIStream;
      const { deltas, message } = await collect(create({ baseUrl, apiKey: KEY, model: "m" }));
      expect(deltas, label).toEqual([]);
      expect(message.stopReason, label).toBe("error");
      expect(message.errorMessage, label).toMatch(/^构造请求失败：baseUrl /);
      for (const part of parts) expect(message.errorMessage, label).toContain(part);
      expect(message.errorMessage, label).not.toContain("网络错误");
      expect(message.errorMessage, label).not.toContain("s3cret");
    }
    expect(server.requests).toEqual([]);
  });

  it("密钥里混进了看不见的字符或汉字：点名 apiKey 与第几个字符，不打印密钥", async () => {
    const server = await serve((_req, res) => res.end());
    for (const apiKey of [`${KEY}\u200b`, `sk-中文-${KEY}`]) {
      const { message } = await collect(createOpenAIStream({ baseUrl: `${server.origin}/v1`, apiKey, model: "m" }));
      expect(message.errorMessage).toMatch(/^构造请求失败：apiKey 的第 \d+ 个字符是/);
      expect(message.errorMessage).not.toContain(KEY);
    }
    expect(server.requests).toEqual([]);
  });

  it("createProviderStream 也一样；正常的设置照常发出请求", async () => {
    const server = await serve((_req, res) => res.end());
    const bad = await collect(createProviderStream({ api: "openai", baseUrl: "api.example.com/v1", apiKey: KEY, model: "m" }));
    expect(bad.message.errorMessage).toMatch(/^构造请求失败：baseUrl 要以 http:\/\/ 或 https:\/\/ 开头/);
    await collect(createProviderStream({ api: "openai", baseUrl: `${server.origin}/v1`, apiKey: "", model: "m" }));
    expect(server.requests).toHaveLength(1);
  });
});
