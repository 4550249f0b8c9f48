/**
 * 服务器送来嵌套极深的 JSON（一万层的工具参数只有六十来 KB）：JSON.parse 解析得出来，
 * 可显示工具调用的 JSON.stringify 会用完调用栈，宿主带着一屏堆栈退出。
 * 所以数据块和工具参数超过 MAX_JSON_DEPTH 层就拒收：一句说明，这一轮按错误结束，宿主照常等下一句。
 * 数层数的 tooDeep 本身在 session-depth.test.ts 里测。
 */
import { describe, expect, it } from "vitest";

import { createAnthropicStream } from "../src/providers/anthropic-messages.js";
import { createOpenAIStream } from "../src/providers/openai-completions.js";
import { MAX_JSON_DEPTH } from "../src/guards/json.js";
import { CALC, collect, HELLO, KEY } from "./helpers/providers.js";
import { sseResponse, type SseEvent } from "./helpers/raw-server.js";

/** levels 层嵌套的对象，写成 JSON 文本（不经过 JSON.stringify：它自己就会用完调用栈）。 */
const nested = (levels: number): string => `${'{"a":'.repeat(levels)}1${"}".repeat(levels)}`;

const withTools = { ...HELLO, tools: [CALC] };
/** 不起服务器：fetch 直接交出这串事件。 */
const replying = (events: SseEvent[]) => async () => sseResponse(events);

describe("服务器送来的 JSON 太深：这一轮按错误结束，不交出那个工具调用", () => {
  it("OpenAI：工具参数嵌套一万层", async () => {
    const call = { index: 0, id: "c1", type: "function", function: { name: "calc", arguments: nested(10_000) } };
    const events = [{ data: { choices: [{ delta: { tool_calls: [call] } }] } }, { data: { choices: [{ delta: {}, finish_reason: "tool_calls" }] } }, { data: "[DONE]" }];
    const { message } = await collect(createOpenAIStream({ baseUrl: "http://127.0.0.1:1", apiKey: KEY, model: "m", fetch: replying(events) }), withTools);
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toBe(`工具 calc 的参数不是合法的 JSON：嵌套超过 ${MAX_JSON_DEPTH} 层（真实的数据不会这么深）`);
    expect(message.content.some((block) => block.type === "toolCall")).toBe(false);
  });

  it("OpenAI：上限以内的参数照常交出", async () => {
    const call = { index: 0, id: "c1", type: "function", function: { name: "calc", arguments: nested(MAX_JSON_DEPTH - 1) } };
    const events = [{ data: { choices: [{ delta: { tool_calls: [call] } }] } }, { data: { choices: [{ delta: {}, finish_reason: "tool_calls" }] } }, { data: "[DONE]" }];
    const { message } = await collect(createOpenAIStream({ baseUrl: "http://127.0.0.1:1", apiKey: KEY, model: "m", fetch: replying(events) }), withTools);
    expect(message.stopReason).toBe("toolUse");
    expect(message.content).toEqual([{ type: "toolCall", id: "c1", name: "calc", arguments: JSON.parse(nested(MAX_JSON_DEPTH - 1)) }]);
  });

  it("Anthropic：块开头就带着一万层的 input（整个数据块太深）是协议错误", async () => {
    const start = `{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t1","name":"calc","input":${nested(10_000)}}}`;
    const events = [
      { event: "message_start", data: { type: "message_start", message: { usage: { input_tokens: 3, output_tokens: 1 } } } },
      { event: "content_block_start", data: start },
      { event: "message_stop", data: { type: "message_stop" } },
    ];
    const { message } = await collect(createAnthropicStream({ baseUrl: "http://127.0.0.1:1", apiKey: KEY, model: "m", fetch: replying(events) }), withTools);
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toMatch(new RegExp(`^协议错误：嵌套超过 ${MAX_JSON_DEPTH} 层（真实的数据不会这么深）：`));
  });

  it("Anthropic：一段段送来的参数拼起来一万层", async () => {
    const json = nested(10_000);
    const pieces = [json.slice(0, 30_000), json.slice(30_000)];
    const events = [
      { event: "message_start", data: { type: "message_start", message: { usage: { input_tokens: 3, output_tokens: 1 } } } },
      { event: "content_block_start", data: { type: "content_block_start", index: 0, content_block: { type: "tool_use", id: "t1", name: "calc", input: {} } } },
      ...pieces.map((partial_json) => ({ event: "content_block_delta", data: { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json } } })),
      { event: "content_block_stop", data: { type: "content_block_stop", index: 0 } },
      { event: "message_delta", data: { type: "message_delta", delta: { stop_reason: "tool_use" }, usage: { output_tokens: 5 } } },
      { event: "message_stop", data: { type: "message_stop" } },
    ];
    const { message } = await collect(createAnthropicStream({ baseUrl: "http://127.0.0.1:1", apiKey: KEY, model: "m", fetch: replying(events) }), withTools);
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toBe(`工具 calc 的参数不是合法的 JSON：嵌套超过 ${MAX_JSON_DEPTH} 层（真实的数据不会这么深）`);
  });
});
