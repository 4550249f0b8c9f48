/**
 * 各家服务的口音（profiles.ts）：同一份剧本，流与错误正文照那一家的样子发。用 fetch 看原样输出；
 * 步骤里的客户端能不能听懂它们，由 step08、step09 的 test/profiles.test.ts 走一遍两轮的工具对话。
 */
import { afterEach, describe, expect, it } from "vitest";
import { PROFILE_NAMES, PROFILES, startProviderServer, type ProfileName, type ProviderServer, type Script } from "../src/index.js";

let server: ProviderServer | undefined;
afterEach(async () => {
  await server?.close();
});

async function start(script: Script, profile?: ProfileName): Promise<void> {
  server = await startProviderServer(script, profile === undefined ? {} : { profile });
}

async function post(body: unknown): Promise<{ status: number; text: string }> {
  const response = await fetch(`${server?.openaiBaseUrl}/chat/completions`, { method: "POST", body: JSON.stringify(body) });
  return { status: response.status, text: await response.text() };
}

interface Chunk {
  usage?: Record<string, unknown>;
  choices: Array<{ delta: Record<string, unknown>; finish_reason: string | null; usage?: Record<string, unknown> }>;
}

const chunksOf = (stream: string): Chunk[] =>
  stream
    .split("\n\n")
    .filter((event) => event.startsWith("data: {"))
    .map((event) => JSON.parse(event.slice(6)) as Chunk);

const ask = { model: "m", stream: true, stream_options: { include_usage: true }, messages: [{ role: "user", content: "算 1+2" }] };
const calc: Script = [{ text: "算一下。", toolCalls: [{ id: "call_1", name: "calc", arguments: { expression: "1+2" } }] }];

describe("profile 的流", () => {
  it("deepseek：每条回复先发 reasoning_content（content 为 null）；用量跟着 finish_reason 那一块，带 prompt_cache_hit_tokens", async () => {
    await start([{ text: "好", usage: { input: 7, cacheRead: 3 } }], "deepseek");
    const chunks = chunksOf((await post(ask)).text);
    expect(chunks[1]?.choices[0]?.delta).toEqual({ content: null, reasoning_content: PROFILES.deepseek.thinking?.slice(0, 2) });
    const last = chunks.at(-1)!;
    expect(last.choices[0]?.finish_reason).toBe("stop");
    expect(last.usage).toMatchObject({ prompt_tokens: 10, prompt_cache_hit_tokens: 3, prompt_cache_miss_tokens: 7 });
    expect(chunks.filter((c) => c.usage)).toHaveLength(1);
  });

  it("kimi：用量不在 chunk.usage，而在收尾那一块的 choices[0].usage", async () => {
    await start([{ text: "好" }], "kimi");
    const chunks = chunksOf((await post(ask)).text);
    expect(chunks.some((c) => c.usage !== undefined)).toBe(false);
    expect(chunks.at(-1)?.choices[0]).toMatchObject({ finish_reason: "stop", usage: { prompt_tokens: 10, completion_tokens: 1 } });
  });

  it("qwen、siliconflow：推理在 reasoning_content；用量是 choices 为空的最后一块（OpenAI 本家的位置）", async () => {
    for (const profile of ["qwen", "siliconflow"] as const) {
      await start([{ text: "好" }], profile);
      const chunks = chunksOf((await post(ask)).text);
      expect(chunks[1]?.choices[0]?.delta).toHaveProperty("reasoning_content");
      expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 10 } });
      await server?.close();
    }
  });

  it("glm：整个工具调用一次给全，和 finish_reason 在同一块里", async () => {
    await start(calc, "glm");
    const chunks = chunksOf((await post(ask)).text);
    const finishing = chunks.find((c) => c.choices[0]?.finish_reason);
    expect(finishing?.choices[0]).toEqual({
      index: 0,
      delta: { tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "calc", arguments: '{"expression":"1+2"}' } }] },
      finish_reason: "tool_calls",
    });
    expect(chunks.filter((c) => c.choices[0]?.delta.tool_calls)).toHaveLength(1);
  });

  it("ollama：工具调用不带 index，一次给全；没有推理", async () => {
    await start(calc, "ollama");
    const chunks = chunksOf((await post(ask)).text);
    const calls = chunks.flatMap((c) => (c.choices[0]?.delta.tool_calls as unknown[] | undefined) ?? []);
    expect(calls).toEqual([{ id: "call_1", type: "function", function: { name: "calc", arguments: '{"expression":"1+2"}' } }]);
    expect(chunks.some((c) => "reasoning_content" in (c.choices[0]?.delta ?? {}))).toBe(false);
  });

  it("vllm：推理字段叫 reasoning，没有 reasoning_content", async () => {
    await start([{ text: "好" }], "vllm");
    const deltas = chunksOf((await post(ask)).text).map((c) => c.choices[0]?.delta ?? {});
    expect(deltas[1]).toEqual({ reasoning: PROFILES.vllm.thinking?.slice(0, 2) });
    expect(deltas.some((d) => "reasoning_content" in d)).toBe(false);
  });

  it("不给 profile：和原来一模一样，不发推理", async () => {
    await start([{ text: "好" }]);
    const chunks = chunksOf((await post(ask)).text);
    expect(chunks[1]?.choices[0]?.delta).toEqual({ content: "好" });
  });
});

describe("profile 的协议检查", () => {
  it("只有 deepseek 要求调过工具的助手消息带回 reasoning_content；别家不查", async () => {
    for (const profile of PROFILE_NAMES) {
      await start([...calc, { text: "等于 3" }], profile);
      await post(ask);
      const { status } = await post({
        ...ask,
        messages: [
          ...ask.messages,
          { role: "assistant", content: "算一下。", tool_calls: [{ id: "call_1", type: "function", function: { name: "calc", arguments: "{}" } }] },
          { role: "tool", tool_call_id: "call_1", content: "3" },
        ],
      });
      expect([profile, status]).toEqual([profile, profile === "deepseek" ? 400 : 200]);
      await server?.close();
    }
  });
});

describe("profile 的错误正文", () => {
  it("httpError 回合：这一家列出的状态码用它自己的正文（原样，不套我们的格式）；message 换掉说明时照旧按协议生成", async () => {
    await start([{ httpError: 429 }, { httpError: 403 }, { httpError: 500 }, { httpError: 429, message: "自己写的" }], "siliconflow");
    expect(JSON.parse((await post(ask)).text)).toEqual({ message: "Request was rejected due to rate limiting. Details: TPM limit reached.", data: null });
    expect(JSON.parse((await post(ask)).text)).toMatchObject({ code: 30011, data: null });
    expect(JSON.parse((await post(ask)).text)).toEqual({ error: { message: "Internal Server Error", type: "api_error", code: null } });
    expect(JSON.parse((await post(ask)).text)).toEqual({ error: { message: "自己写的", type: "rate_limit_error", code: null } });
  });

  it("每一家的每一份错误正文都是合法的 JSON 对象，状态码在 400–599", () => {
    for (const name of PROFILE_NAMES) {
      for (const [status, body] of Object.entries(PROFILES[name].errors)) {
        expect(Number(status)).toBeGreaterThanOrEqual(400);
        expect(Number(status)).toBeLessThan(600);
        expect(typeof body).toBe("object");
        expect(JSON.parse(JSON.stringify(body))).toEqual(body);
      }
    }
  });
});

describe("keepAlive：回答之前先发 : keep-alive 注释", () => {
  it("注释在最前面，之后照常回答", async () => {
    await start([{ keepAlive: 3, text: "好" }]);
    const { text } = await post(ask);
    expect(text.startsWith(": keep-alive\n\n: keep-alive\n\n: keep-alive\n\n: 本地脚本服务器\n\n")).toBe(true);
    expect(chunksOf(text).some((c) => c.choices[0]?.delta.content === "好")).toBe(true);
  });
});
