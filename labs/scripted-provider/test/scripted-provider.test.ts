/**
 * 按剧本回答：从请求体还原上下文、把剧本的回答编成回复、注入故障。
 * 这里用一个最小的剧本函数；步骤的真剧本（rules.ts）走真实 HTTP 的测试在 step08、step09 里。
 */
import { describe, expect, it } from "vitest";
import { contextFromRequest, replyTo, scriptedProvider, type Answerer, type RecordedRequest } from "../src/index.js";

const request = (api: "openai" | "anthropic", body: unknown): RecordedRequest => ({
  method: "POST",
  path: api === "openai" ? "/v1/chat/completions" : "/v1/messages",
  api,
  headers: {},
  body,
});

/** 最小的剧本：复述最后一句用户的话；「出个错」就在流里报错。 */
const echo: Answerer = (context) => {
  const last = context.messages.at(-1);
  const text = last?.role === "user" ? last.content : "";
  return text === "出个错" ? { text: "好的", toolCalls: [], error: "模拟的错误" } : { text: `你说：${text}`, toolCalls: [] };
};

describe("contextFromRequest：从请求体还原剧本需要的上下文", () => {
  it("OpenAI：工具结果的工具名从对应的调用里找回来", () => {
    const body = {
      messages: [
        { role: "user", content: "帮我算 1/0" },
        { role: "assistant", content: "我用 calc 算一下。", tool_calls: [{ id: "call_1", type: "function", function: { name: "calc", arguments: '{"expression":"1/0"}' } }] },
        { role: "tool", tool_call_id: "call_1", content: "工具 calc 出错：除数不能为 0" },
      ],
    };
    expect(contextFromRequest(request("openai", body)).messages).toEqual([
      { role: "user", content: "帮我算 1/0" },
      { role: "assistant", stopReason: "toolUse", content: [{ type: "text", text: "我用 calc 算一下。" }, { type: "toolCall", id: "call_1", name: "calc", arguments: { expression: "1/0" } }] },
      { role: "toolResult", toolCallId: "call_1", toolName: "calc", content: "工具 calc 出错：除数不能为 0", isError: true },
    ]);
  });

  it("Anthropic：工具结果是 user 消息里的 tool_result 块，is_error 照搬", () => {
    const body = {
      messages: [
        { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "calc", input: { expression: "1+1" } }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "2", is_error: false }] },
      ],
    };
    const [, result] = contextFromRequest(request("anthropic", body)).messages;
    expect(result).toEqual({ role: "toolResult", toolCallId: "toolu_1", toolName: "calc", content: "2" });
  });

  it("OpenAI 的 tool 消息没有 is_error：按工具的报错措辞猜；普通结果不算错误", () => {
    const body = { messages: [{ role: "tool", tool_call_id: "x", content: "未注册的工具：upper" }, { role: "tool", tool_call_id: "y", content: "646" }] };
    const [failed, ok] = contextFromRequest(request("openai", body)).messages;
    expect(failed).toMatchObject({ isError: true, toolName: "" });
    expect(ok).not.toHaveProperty("isError");
  });

  it.each(["工具 sleep 执行超时（50ms）", "工具 sleep 被取消", "读取被取消：a.txt", "src 是一个目录"])("step09 的超时、取消与 read_file 的报错也算错误：%s", (content) => {
    const [result] = contextFromRequest(request("openai", { messages: [{ role: "tool", tool_call_id: "x", content }] })).messages;
    expect(result).toMatchObject({ isError: true });
  });

  it("内容可以是文本块数组；坏掉的请求体不抛异常，只是没有消息", () => {
    const blocks = { messages: [{ role: "user", content: [{ type: "text", text: "我叫" }, { type: "text", text: "小明" }] }] };
    expect(contextFromRequest(request("openai", blocks)).messages).toEqual([{ role: "user", content: "我叫小明" }]);
    for (const body of [undefined, "not json", { messages: "x" }, { messages: [null, 1, { role: "tool" }] }]) {
      expect(() => contextFromRequest(request("openai", body))).not.toThrow();
      expect(() => contextFromRequest(request("anthropic", body))).not.toThrow();
    }
  });
});

describe("replyTo / scriptedProvider", () => {
  const say = (text: string) => request("openai", { messages: [{ role: "user", content: text }] });

  it("剧本的回答变成回复；带 error 的：先说话，再在流里报错，不调工具", () => {
    expect(replyTo(say("你好"), echo)).toEqual({ text: "你说：你好", toolCalls: [] });
    expect(replyTo(say("出个错"), echo)).toEqual({ text: "好的", streamError: { type: "api_error", message: "模拟的错误" } });
  });

  it("剧本自己抛异常：变成流里的错误，服务器不崩", () => {
    const broken: Answerer = () => {
      throw new Error("规则坏了");
    };
    expect(replyTo(say("你好"), broken)).toEqual({ streamError: { type: "api_error", message: "剧本规则出错：规则坏了" } });
  });

  it("故障：HTTP 错误与挂起原样返回；其余的叠加在剧本回复上", () => {
    const faults = [{ httpError: 429 }, { hang: true as const }, { hangAfterChunks: 3 }, undefined];
    const script = scriptedProvider({ answer: echo, chunkDelayMs: 5, fault: (index) => faults[index] });
    expect(script(say("我叫小明"), 0)).toEqual({ httpError: 429 });
    expect(script(say("我叫小明"), 1)).toEqual({ hang: true });
    expect(script(say("我叫小明"), 2)).toEqual({ text: "你说：我叫小明", toolCalls: [], chunkDelayMs: 5, hangAfterChunks: 3 });
    expect(script(say("我叫小明"), 3)).toEqual({ text: "你说：我叫小明", toolCalls: [], chunkDelayMs: 5 });
  });
});
