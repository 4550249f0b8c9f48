import { afterEach, describe, expect, it } from "vitest";
import { startProviderServer, type ProviderServer } from "scripted-provider";
import { createProviderStream, describeProvider, resolveProviderConfig } from "../src/providers/index.js";
import { collect, KEY } from "./helpers/providers.js";

describe("resolveProviderConfig", () => {
  it("什么都没配：openai 的默认值，没有密钥，也不算指向真实服务", () => {
    expect(resolveProviderConfig({})).toEqual({
      ok: true,
      config: { api: "openai", baseUrl: "https://api.openai.com/v1", apiKey: "", model: "gpt-4o-mini" },
      configured: false,
      keySource: undefined,
    });
  });

  it("OPENAI_API_KEY 作为后备；HARNESS_API_KEY 优先", () => {
    const fallback = resolveProviderConfig({ OPENAI_API_KEY: "sk-a", ANTHROPIC_API_KEY: "sk-b" });
    expect(fallback).toMatchObject({ ok: true, config: { apiKey: "sk-a" }, configured: true, keySource: "OPENAI_API_KEY" });
    const explicit = resolveProviderConfig({ HARNESS_API_KEY: "sk-h", OPENAI_API_KEY: "sk-a" });
    expect(explicit).toMatchObject({ config: { apiKey: "sk-h" }, keySource: "HARNESS_API_KEY" });
  });

  it("anthropic：自己的默认地址、模型与后备密钥变量（大小写、空白不敏感）", () => {
    expect(resolveProviderConfig({ HARNESS_API: " Anthropic ", OPENAI_API_KEY: "sk-a", ANTHROPIC_API_KEY: "sk-b" })).toEqual({
      ok: true,
      config: { api: "anthropic", baseUrl: "https://api.anthropic.com", apiKey: "sk-b", model: "claude-sonnet-4-5" },
      configured: true,
      keySource: "ANTHROPIC_API_KEY",
    });
  });

  it("只给 HARNESS_BASE_URL（如本地 Ollama，不要密钥）也算指向真实服务", () => {
    expect(resolveProviderConfig({ HARNESS_BASE_URL: "http://localhost:11434/v1", HARNESS_MODEL: "qwen2.5" })).toMatchObject({
      config: { baseUrl: "http://localhost:11434/v1", apiKey: "", model: "qwen2.5" },
      configured: true,
    });
  });

  it("HARNESS_API 写错：中文错误", () => {
    expect(resolveProviderConfig({ HARNESS_API: "gemini" })).toEqual({
      ok: false,
      error: "HARNESS_API 只能是 openai 或 anthropic，收到的是：gemini",
    });
  });
});

describe("describeProvider", () => {
  it("一行说明：模型、协议、完整地址；不含密钥，也不含地址里的账号口令", () => {
    expect(describeProvider({ api: "openai", baseUrl: "https://api.openai.com/v1/", model: "gpt-4o-mini" })).toBe(
      "模型：gpt-4o-mini（OpenAI Chat Completions，https://api.openai.com/v1/chat/completions）",
    );
    const line = describeProvider({ api: "anthropic", baseUrl: `https://user:${KEY}@proxy.example/x`, model: "claude" });
    expect(line).toBe("模型：claude（Anthropic Messages，https://proxy.example/x/v1/messages）");
  });
});

describe("createProviderStream", () => {
  let server: ProviderServer | undefined;
  afterEach(async () => {
    await server?.close();
  });

  it("密钥里混进了换行：发请求之前就点名第几个字符（同启动时的检查），密钥一个字也不打印", async () => {
    const bad = `sk-line\nbreak-${KEY}`;
    const { message } = await collect(createProviderStream({ api: "openai", baseUrl: "http://127.0.0.1:9/v1", apiKey: bad, model: "m" }));
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toMatch(/^构造请求失败：apiKey 的第 8 个字符是看不见的 U\+000A/);
    expect(message.errorMessage).not.toContain("break-");
    expect(message.errorMessage).not.toContain("sk-line");
  });

  it("两种协议对同一段脚本给出同样的消息", async () => {
    server = await startProviderServer([{ text: "同一句话" }, { text: "同一句话" }], { apiKey: KEY });
    const openai = await collect(createProviderStream({ api: "openai", baseUrl: server.openaiBaseUrl, apiKey: KEY, model: "m" }));
    const anthropic = await collect(createProviderStream({ api: "anthropic", baseUrl: server.anthropicBaseUrl, apiKey: KEY, model: "m" }));
    expect(openai).toEqual(anthropic);
    expect(server.requests.map((request) => request.api)).toEqual(["openai", "anthropic"]);
  });
});
