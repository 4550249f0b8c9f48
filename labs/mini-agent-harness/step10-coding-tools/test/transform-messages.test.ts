import { describe, expect, it } from "vitest";
import { NO_RESULT, transformMessages } from "../src/providers/transform-messages.js";
import type { AssistantMessage, Message, ToolCall, ToolResultMessage } from "../src/types.js";

const call = (id: string, name = "calc"): ToolCall => ({ type: "toolCall", id, name, arguments: { expression: "1+1" } });
const assistant = (stopReason: AssistantMessage["stopReason"], ...content: AssistantMessage["content"]): AssistantMessage => ({
  role: "assistant",
  content,
  stopReason,
});
const result = (toolCallId: string, content = "2"): ToolResultMessage => ({ role: "toolResult", toolCallId, toolName: "calc", content });
const synthetic = (toolCallId: string, toolName = "calc"): ToolResultMessage => ({
  role: "toolResult",
  toolCallId,
  toolName,
  content: NO_RESULT,
  isError: true,
});

describe("transformMessages", () => {
  it("完整配对的历史原样通过，且不改动输入", () => {
    const messages: Message[] = [
      { role: "user", content: "算 1+1" },
      assistant("toolUse", { type: "text", text: "我来算" }, call("c1")),
      result("c1"),
      assistant("stop", { type: "text", text: "是 2" }),
    ];
    const copy = structuredClone(messages);
    expect(transformMessages(messages)).toEqual(messages);
    expect(messages).toEqual(copy);
  });

  it("出错和被取消的助手消息不进请求", () => {
    const messages: Message[] = [
      { role: "user", content: "讲个故事" },
      assistant("aborted", { type: "text", text: "从前有" }),
      { role: "user", content: "再试一次" },
      { ...assistant("error", { type: "text", text: "半句" }), errorMessage: "HTTP 500：api_error：boom" },
      { role: "user", content: "还在吗" },
    ];
    expect(transformMessages(messages)).toEqual([
      { role: "user", content: "讲个故事" },
      { role: "user", content: "再试一次" },
      { role: "user", content: "还在吗" },
    ]);
  });

  it("3 个工具调用只有 1 条结果：在下一条用户消息之前补 2 条 No result provided", () => {
    const messages: Message[] = [
      { role: "user", content: "算三道题" },
      assistant("toolUse", call("c1"), call("c2", "read_file"), call("c3")),
      result("c1"),
      { role: "user", content: "算了，不用了" },
    ];
    expect(transformMessages(messages)).toEqual([
      messages[0],
      messages[1],
      result("c1"),
      synthetic("c2", "read_file"),
      synthetic("c3"),
      { role: "user", content: "算了，不用了" },
    ]);
  });

  it("落单的调用在下一条助手消息之前补齐（即使那条助手消息本身被跳过）", () => {
    const messages: Message[] = [
      { role: "user", content: "算" },
      assistant("toolUse", call("c1")),
      assistant("aborted", { type: "text", text: "半" }),
      assistant("stop", { type: "text", text: "好" }),
    ];
    expect(transformMessages(messages)).toEqual([messages[0], messages[1], synthetic("c1"), messages[3]]);
  });

  it("落单的调用在末尾也补齐", () => {
    const messages: Message[] = [{ role: "user", content: "算" }, assistant("toolUse", call("c1"), call("c2")), result("c2")];
    expect(transformMessages(messages)).toEqual([...messages, synthetic("c1")]);
  });

  it("被跳过的助手消息里的工具调用不需要补结果", () => {
    const messages: Message[] = [{ role: "user", content: "算" }, assistant("aborted", call("c1")), { role: "user", content: "嗯" }];
    expect(transformMessages(messages)).toEqual([messages[0], messages[2]]);
  });
});
