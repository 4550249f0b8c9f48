// Anthropic 解码器的边角：变异测试（npm run mutation）找出来的、anthropic-messages.test.ts 没有测到的事件形状。
// 不起服务器：一个假 fetch 直接交回写好的事件流，整个文件在进程内跑完。
import { afterEach, describe, expect, it, vi } from "vitest";

import { buildAnthropicRequest, createAnthropicStream } from "../src/providers/anthropic-messages.js";
import { collect, KEY } from "./helpers/providers.js";
import { sseResponse } from "./helpers/raw-server.js";

/** 一个事件：[event 名（undefined 表示不写 event: 行）, data]。data 是字符串时原样写出。 */
type Wire = [string | undefined, unknown];

function sseFetch(events: Wire[]): typeof fetch {
  return async () => sseResponse(events.map(([event, data]) => ({ event, data })));
}

function stream(events: Wire[]) {
  return createAnthropicStream({ baseUrl: "http://anthropic.test", apiKey: KEY, model: "m", maxRetries: 0, fetch: sseFetch(events) });
}

const START: Wire = ["message_start", { type: "message_start", message: { usage: { input_tokens: 3, output_tokens: 1 } } }];
const END: Wire[] = [
  ["message_delta", { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 9 } }],
  ["message_stop", { type: "message_stop" }],
];
const USAGE = { input: 3, output: 9, cacheRead: 0, cacheWrite: 0 };

afterEach(() => {
  vi.restoreAllMocks();
});

describe("Anthropic 解码器：事件的各种形状", () => {
  it("message_start 里的用量：没给的字段记 0；没有 message 也不出错", async () => {
    const partial = await collect(stream([["message_start", { type: "message_start", message: { usage: { input_tokens: 5 } } }], ["message_stop", { type: "message_stop" }]]));
    expect(partial.message.usage).toEqual({ input: 5, output: 0, cacheRead: 0, cacheWrite: 0 });
    const bare = await collect(stream([["message_start", { type: "message_start" }], ...END]));
    expect(bare.message).toEqual({ role: "assistant", content: [], stopReason: "stop", usage: { input: 0, output: 9, cacheRead: 0, cacheWrite: 0 } });
  });

  it("事件类型只写在 data.type 里（没有 event: 行），或只写在 event: 行里（data 没有 type）", async () => {
    const onlyData = await collect(stream([
      [undefined, START[1]],
      [undefined, { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "甲" } }],
      [undefined, { type: "message_delta", delta: { stop_reason: "end_turn" } }],
    ]));
    expect(onlyData.message).toMatchObject({ content: [{ type: "text", text: "甲" }], stopReason: "stop" });
    const onlyName = await collect(stream([
      ["message_start", { message: { usage: { input_tokens: 3 } } }],
      ["content_block_delta", { index: 0, delta: { type: "text_delta", text: "乙" } }],
      ["message_delta", { delta: { stop_reason: "end_turn" } }],
    ]));
    expect(onlyName.message).toMatchObject({ content: [{ type: "text", text: "乙" }], stopReason: "stop" });
  });

  it("message_stop 之后、流中错误之后的事件一概不理", async () => {
    const afterStop = await collect(stream([
      START,
      ["content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "说完" } }],
      ...END,
      ["content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "多余" } }],
      ["message_delta", { type: "message_delta", delta: { stop_reason: "max_tokens" } }],
    ]));
    expect(afterStop.message).toEqual({ role: "assistant", content: [{ type: "text", text: "说完" }], stopReason: "stop", usage: USAGE });
    const afterError = await collect(stream([
      START,
      ["error", { type: "error", error: { type: "overloaded_error", message: "忙" } }],
      ["content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "多余" } }],
      ["error", { type: "error", error: { type: "other_error", message: "第二个错" } }],
    ]));
    expect(afterError.message.content).toEqual([]);
    expect(afterError.message.errorMessage).toContain("忙");
    expect(afterError.message.errorMessage).not.toContain("第二个错");
    const afterGarbage = await collect(stream([START, [undefined, "{不是 JSON"], [undefined, "{还是不是"], ...END]));
    expect(afterGarbage.message.stopReason).toBe("error");
    expect(afterGarbage.message.errorMessage).toBe("无法解析的流数据：{不是 JSON");
  });

  it("error 事件里没有 error 字段：说明就用事件原文", async () => {
    const { message } = await collect(stream([START, ["error", { type: "error" }]]));
    expect(message.errorMessage).toBe('流中错误：{"type":"error"}');
    const long = JSON.stringify({ type: "error", pad: "x".repeat(300) });
    const cut = await collect(stream([START, ["error", long]]));
    expect(cut.message.errorMessage).toBe(`流中错误：${long.slice(0, 200)}`);
  });

  it("流中错误里回显的密钥被抹掉", async () => {
    const { message } = await collect(stream([START, ["error", { type: "error", error: { type: "authentication_error", message: `bad key ${KEY}` } }]]));
    expect(message.errorMessage).toContain("bad key ***");
  });

  it("两个工具块按 index 分开拼参数；没写 index 的算第 0 块", async () => {
    const { message } = await collect(stream([
      START,
      ["content_block_start", { type: "content_block_start", content_block: { type: "tool_use", id: "a", name: "calc" } }],
      ["content_block_start", { type: "content_block_start", index: 1, content_block: { type: "tool_use", id: "b", name: "upper" } }],
      ["content_block_delta", { type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: '{"text":' } }],
      ["content_block_delta", { type: "content_block_delta", delta: { type: "input_json_delta", partial_json: '{"expression":"1"}' } }],
      ["content_block_delta", { type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: '"x"}' } }],
      ["content_block_stop", { type: "content_block_stop", index: 1 }],
      ["content_block_stop", { type: "content_block_stop" }],
      ["message_delta", { type: "message_delta", delta: { stop_reason: "tool_use" } }],
      ["message_stop", { type: "message_stop" }],
    ]));
    expect(message.content).toEqual([
      { type: "toolCall", id: "a", name: "calc", arguments: { expression: "1" } },
      { type: "toolCall", id: "b", name: "upper", arguments: { text: "x" } },
    ]);
    expect(message.stopReason).toBe("toolUse");
  });

  it("参数在 content_block_start 里一次给全、没有分片：用开头给的；input 是 null 时参数为空对象；没有名字记空串", async () => {
    const { message } = await collect(stream([
      START,
      ["content_block_start", { type: "content_block_start", index: 0, content_block: { type: "tool_use", id: "a", name: "calc", input: { expression: "2" } } }],
      ["content_block_stop", { type: "content_block_stop", index: 0 }],
      ["content_block_start", { type: "content_block_start", index: 1, content_block: { type: "tool_use", id: "b", input: null } }],
      ["content_block_stop", { type: "content_block_stop", index: 1 }],
      ["message_delta", { type: "message_delta", delta: { stop_reason: "tool_use" } }],
      ["message_stop", { type: "message_stop" }],
    ]));
    expect(message.content).toEqual([
      { type: "toolCall", id: "a", name: "calc", arguments: { expression: "2" } },
      { type: "toolCall", id: "b", name: "", arguments: {} },
    ]);
  });

  it("参数既在开头给了又有分片：以分片为准", async () => {
    const { message } = await collect(stream([
      START,
      ["content_block_start", { type: "content_block_start", index: 0, content_block: { type: "tool_use", id: "a", name: "calc", input: {} } }],
      ["content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: '{"expression":"3"}' } }],
      ["content_block_stop", { type: "content_block_stop", index: 0 }],
      ["message_delta", { type: "message_delta", delta: { stop_reason: "tool_use" } }],
    ]));
    expect(message.content).toEqual([{ type: "toolCall", id: "a", name: "calc", arguments: { expression: "3" } }]);
  });

  it("text 块与 thinking 块在 content_block_start 里就带着内容", async () => {
    const { deltas, message } = await collect(stream([
      START,
      ["content_block_start", { type: "content_block_start", index: 0, content_block: { type: "thinking", thinking: "想", signature: "签" } }],
      ["content_block_start", { type: "content_block_start", index: 1, content_block: { type: "text", text: "开头" } }],
      ["content_block_delta", { type: "content_block_delta", index: 1, delta: { type: "text_delta", text: "，接着" } }],
      ...END,
    ]));
    expect(deltas).toEqual(["开头", "，接着"]);
    expect(message.content).toEqual([
      { type: "thinking", thinking: "想", thinkingSignature: "签" },
      { type: "text", text: "开头，接着" },
    ]);
  });

  it("空的 thinking 块开头，推理与签名随后以增量到达", async () => {
    const { deltas, message } = await collect(stream([
      START,
      ["content_block_start", { type: "content_block_start", index: 0, content_block: { type: "thinking" } }],
      ["content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "一步" } }],
      ["content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "signature_delta", signature: "sig" } }],
      ["content_block_start", { type: "content_block_start", index: 1, content_block: { type: "text", text: "" } }],
      ["content_block_delta", { type: "content_block_delta", index: 1, delta: { type: "text_delta", text: "答" } }],
      ...END,
    ]));
    expect(deltas).toEqual(["答"]);
    expect(message.content).toEqual([
      { type: "thinking", thinking: "一步", thinkingSignature: "sig" },
      { type: "text", text: "答" },
    ]);
  });

  it("空的、不认识的、缺字段的增量与块都被忽略，不造出空块，也不报警", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const { deltas, message } = await collect(stream([
      START,
      ["content_block_start", { type: "content_block_start", index: 0 }],
      ["content_block_start", { type: "content_block_start", index: 0, content_block: { type: "server_tool_use", text: "不是文字" } }],
      ["content_block_delta", { type: "content_block_delta", index: 0 }],
      ["content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "" } }],
      ["content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "signature_delta", signature: "" } }],
      ["content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: "" } }],
      ["content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "citations_delta", text: "引用", thinking: "引", signature: "s", partial_json: "{}" } }],
      ["content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "" } }],
      ["content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "只有这句" } }],
      ...END,
    ]));
    expect(deltas).toEqual(["只有这句"]);
    expect(message.content).toEqual([{ type: "text", text: "只有这句" }]);
    expect(warn).not.toHaveBeenCalled();
  });

  it("没开始过的块来了参数：报警、丢掉，别的照常", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const { message } = await collect(stream([
      START,
      ["content_block_delta", { type: "content_block_delta", index: 4, delta: { type: "input_json_delta", partial_json: "{}" } }],
      ["content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "好" } }],
      ...END,
    ]));
    expect(message.content).toEqual([{ type: "text", text: "好" }]);
    expect(warn).toHaveBeenCalledWith("[警告] 模型服务发来了内容块 4 的工具参数，但这个块从没开始过：已忽略");
  });
});

describe("Anthropic 解码器：结束原因与用量", () => {
  it("只带用量的 message_delta 不抹掉之前的 stop_reason；没有 delta 的也不出错", async () => {
    const { message } = await collect(stream([
      START,
      ["message_delta", { type: "message_delta", delta: { stop_reason: "max_tokens" } }],
      ["message_delta", { type: "message_delta", usage: { output_tokens: 4 } }],
      ["message_delta", { type: "message_delta", delta: {} }],
    ]));
    expect(message).toEqual({ role: "assistant", content: [], stopReason: "length", usage: { input: 3, output: 4, cacheRead: 0, cacheWrite: 0 } });
  });

  it("没有 message_start：message_delta 里的用量无从累加，消息不带 usage", async () => {
    const withUsage = await collect(stream([["message_delta", { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 5 } }]]));
    expect(withUsage.message).toEqual({ role: "assistant", content: [], stopReason: "stop" });
    const without = await collect(stream([["message_delta", { type: "message_delta", delta: { stop_reason: "end_turn" } }]]));
    expect(without.message).toEqual({ role: "assistant", content: [], stopReason: "stop" });
  });

  it("stop_sequence 与 end_turn 一样算正常结束", async () => {
    const { message } = await collect(stream([START, ["message_delta", { type: "message_delta", delta: { stop_reason: "stop_sequence" } }]]));
    expect(message.stopReason).toBe("stop");
  });

  it("ping 与不认识的事件被忽略；流读完了还没有 stop_reason 就是中断", async () => {
    const { message } = await collect(stream([START, ["ping", { type: "ping" }], ["future_event", { type: "future_event", delta: { stop_reason: "end_turn" } }]]));
    expect(message).toEqual({
      role: "assistant",
      content: [],
      stopReason: "error",
      errorMessage: "流在结束前中断（没有收到 stop_reason）",
      usage: { input: 3, output: 1, cacheRead: 0, cacheWrite: 0 },
    });
  });
});

describe("Anthropic 请求体的边角", () => {
  it("上下文以工具结果开头（前面没有消息可合并）：单独成一条 user 消息", () => {
    const body = buildAnthropicRequest({ baseUrl: "http://x", apiKey: "", model: "m" }, {
      messages: [{ role: "toolResult", toolCallId: "t", toolName: "calc", content: "1" }],
    });
    expect(body.messages).toEqual([{ role: "user", content: [{ type: "tool_result", tool_use_id: "t", content: "1", is_error: false }] }]);
  });

  it("没有签名的思考块（别家模型的推理）送不回去：丢掉；有签名的原样送回；空文本块与只剩空文本的助手消息不发", () => {
    const body = buildAnthropicRequest({ baseUrl: "http://x", apiKey: "", model: "m" }, {
      messages: [
        { role: "user", content: "问" },
        {
          role: "assistant",
          stopReason: "toolUse",
          content: [
            { type: "thinking", thinking: "别家的推理" },
            { type: "text", text: "" },
            { type: "thinking", thinking: "自家的", thinkingSignature: "sig" },
            { type: "toolCall", id: "t", name: "calc", arguments: {} },
          ],
        },
        { role: "toolResult", toolCallId: "t", toolName: "calc", content: "1" },
        { role: "assistant", stopReason: "stop", content: [{ type: "text", text: "" }] },
        { role: "user", content: "再问" },
      ],
    });
    expect(body.messages).toEqual([
      { role: "user", content: "问" },
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "自家的", signature: "sig" },
          { type: "tool_use", id: "t", name: "calc", input: {} },
        ],
      },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "t", content: "1", is_error: false }] },
      { role: "user", content: "再问" },
    ]);
    expect(body).not.toHaveProperty("tools");
  });
});
