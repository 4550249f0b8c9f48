// OpenAI 解码器的边角：变异测试（npm run mutation）找出来的、openai-completions.test.ts 没有测到的块的形状。
// 不起服务器：一个假 fetch 直接交回写好的事件流，整个文件在进程内跑完。
import { describe, expect, it } from "vitest";

import { buildOpenAIRequest, createOpenAIStream } from "../src/providers/openai-completions.js";
import { collect, KEY } from "./helpers/providers.js";
import { sseResponse } from "./helpers/raw-server.js";

/** 每个元素是一个事件的 data：对象按 JSON 写出，字符串原样写出（如 [DONE]）。 */
function stream(chunks: unknown[]) {
  const fetch: typeof globalThis.fetch = async () => sseResponse(chunks.map((data) => ({ data })));
  return createOpenAIStream({ baseUrl: "http://openai.test/v1", apiKey: KEY, model: "m", maxRetries: 0, fetch });
}

const delta = (d: unknown, finish_reason?: string) => ({ choices: [{ delta: d, ...(finish_reason ? { finish_reason } : {}) }] });
const tools = (...parts: unknown[]) => delta({ tool_calls: parts });

describe("OpenAI 解码器：块的各种形状", () => {
  it("[DONE] 之后的块一概不理", async () => {
    const { message } = await collect(stream([delta({ content: "说完" }), "[DONE]", delta({ content: "多余" }), delta({}, "length")]));
    expect(message).toEqual({ role: "assistant", content: [{ type: "text", text: "说完" }], stopReason: "stop" });
  });

  it("畸形的块之后的块一概不理：错误是第一个", async () => {
    const { message } = await collect(stream([delta({ content: "半" }), "{坏", "{也坏", delta({}, "stop")]));
    expect(message).toEqual({ role: "assistant", content: [{ type: "text", text: "半" }], stopReason: "error", errorMessage: "无法解析的流数据：{坏" });
  });

  it("没有 choices 的块、没有 delta 的 choice、没有 function 的工具碎片：都不出错", async () => {
    const { message } = await collect(stream([
      { usage: { prompt_tokens: 10, completion_tokens: 2 } },
      tools({ index: 0, id: "a", function: { name: "calc" } }),
      tools({ index: 0 }),
      tools({ index: 0, function: { arguments: '{"expression":"1"}' } }),
      { choices: [{ finish_reason: "tool_calls" }] },
    ]));
    expect(message).toEqual({
      role: "assistant",
      content: [{ type: "toolCall", id: "a", name: "calc", arguments: { expression: "1" } }],
      stopReason: "toolUse",
      usage: { input: 10, output: 2, cacheRead: 0, cacheWrite: 0 },
    });
  });

  it("用量：缓存命中取 prompt_tokens_details.cached_tokens，没有时取 DeepSeek 的 prompt_cache_hit_tokens", async () => {
    const deepseek = await collect(stream([delta({ content: "好" }, "stop"), { choices: [], usage: { prompt_tokens: 10, completion_tokens: 3, prompt_cache_hit_tokens: 4 } }]));
    expect(deepseek.message.usage).toEqual({ input: 6, output: 3, cacheRead: 4, cacheWrite: 0 });
    const openai = await collect(stream([delta({ content: "好" }, "stop"), { usage: { prompt_tokens: 10, prompt_tokens_details: {}, prompt_cache_hit_tokens: 4 } }]));
    expect(openai.message.usage).toEqual({ input: 6, output: 0, cacheRead: 4, cacheWrite: 0 });
  });

  it("index 交错的两个调用，只有第一片带 id 与名字：按 index 拼回", async () => {
    const { message } = await collect(stream([
      tools({ index: 0, id: "a", function: { name: "calc", arguments: '{"expression":' } }),
      tools({ index: 1, id: "b", function: { name: "upper", arguments: '{"text":' } }),
      tools({ index: 0, function: { arguments: '"1"}' } }),
      tools({ index: 1, function: { arguments: '"x"}' } }),
      delta({}, "tool_calls"),
    ]));
    expect(message.content).toEqual([
      { type: "toolCall", id: "a", name: "calc", arguments: { expression: "1" } },
      { type: "toolCall", id: "b", name: "upper", arguments: { text: "x" } },
    ]);
  });

  it("不给 index：按 id 认领，同一个 id 回来时接回原来的调用；后来的碎片改不了已有的名字", async () => {
    const { message } = await collect(stream([
      tools({ id: "a", function: { name: "calc", arguments: '{"expression":' } }),
      tools({ id: "b", function: { name: "upper", arguments: '{"text":"x"}' } }),
      tools({ id: "a", function: { name: "别的名字", arguments: '"2"}' } }),
      delta({}, "tool_calls"),
    ]));
    expect(message.content).toEqual([
      { type: "toolCall", id: "a", name: "calc", arguments: { expression: "2" } },
      { type: "toolCall", id: "b", name: "upper", arguments: { text: "x" } },
    ]);
  });

  it("第一片既没有 index 也没有 id：算第 0 个调用，之后带 index 0 的碎片接在它后面", async () => {
    const { message } = await collect(stream([
      tools({ function: { name: "calc", arguments: '{"expression":' } }),
      tools({ index: 0, function: { arguments: '"3"}' } }),
      delta({}, "tool_calls"),
    ]));
    expect(message.content).toEqual([{ type: "toolCall", id: "", name: "calc", arguments: { expression: "3" } }]);
  });
});

describe("OpenAI 的结束原因", () => {
  it("旧式的 function_call 与 tool_calls 一样算 toolUse", async () => {
    const { message } = await collect(stream([tools({ index: 0, id: "a", function: { name: "calc", arguments: "{}" } }), delta({}, "function_call")]));
    expect(message.stopReason).toBe("toolUse");
  });
});

describe("OpenAI 请求体的边角", () => {
  it("既没文字也没工具调用的助手消息不发（只有推理的也算）", () => {
    const body = buildOpenAIRequest({ baseUrl: "http://x", apiKey: "", model: "m" }, {
      messages: [
        { role: "user", content: "问" },
        { role: "assistant", stopReason: "stop", content: [{ type: "thinking", thinking: "想了想" }, { type: "text", text: "" }] },
        { role: "user", content: "再问" },
      ],
    });
    expect(body.messages).toEqual([
      { role: "user", content: "问" },
      { role: "user", content: "再问" },
    ]);
    expect(body).not.toHaveProperty("tools");
  });
});
