import { describe, expect, it } from "vitest";
import { compactionNote, compactMessages, NOTHING_TO_DROP } from "../src/retry/compaction.js";
import { transformMessages } from "../src/providers/transform-messages.js";
import type { AssistantMessage, Message, ToolResultMessage, UserMessage } from "../src/types.js";

const user = (content: string): UserMessage => ({ role: "user", content });
const reply = (text: string): AssistantMessage => ({ role: "assistant", content: [{ type: "text", text }], stopReason: "stop" });
const callsTool = (id: string): AssistantMessage => ({
  role: "assistant",
  content: [{ type: "toolCall", id, name: "calc", arguments: { expression: "1+1" } }],
  stopReason: "toolUse",
});
const result = (id: string): ToolResultMessage => ({ role: "toolResult", toolCallId: id, toolName: "calc", content: "2" });

/** 三轮对话：第二轮里有一次工具调用。 */
const HISTORY: Message[] = [
  user("第一问"),
  reply("第一答"),
  user("第二问"),
  callsTool("c1"),
  result("c1"),
  reply("第二答"),
  user("第三问"),
  callsTool("c2"),
  result("c2"),
];

describe("compactMessages", () => {
  it("丢掉最早的整轮，只留最后一轮，开头放一条说明", () => {
    const { messages, dropped } = compactMessages(HISTORY);
    expect(dropped).toBe(6);
    expect(messages).toEqual([user("（早先的 6 条消息因超出上下文窗口已被省略）"), ...HISTORY.slice(6)]);
  });

  it("keepTurns：留下最后两轮", () => {
    const { messages, dropped } = compactMessages(HISTORY, { keepTurns: 2 });
    expect(dropped).toBe(2);
    expect(messages).toEqual([user(compactionNote(2)), ...HISTORY.slice(2)]);
  });

  it("工具调用和它的结果永远在一起：压缩后每个调用都有结果，每个结果都有调用", () => {
    for (const keepTurns of [1, 2, 3]) {
      const { messages } = compactMessages(HISTORY, { keepTurns });
      const calls = messages.flatMap((m) => (m.role === "assistant" ? m.content.filter((b) => b.type === "toolCall").map((b) => b.id) : []));
      const results = messages.flatMap((m) => (m.role === "toolResult" ? [m.toolCallId] : []));
      expect(results).toEqual(calls);
      // 发请求前的整理也不必补任何「No result provided」
      expect(transformMessages(messages)).toEqual(messages);
    }
  });

  it("只有一轮：没法压缩，原样返回并说明原因", () => {
    const oneTurn = [user("很长很长的问题"), callsTool("c1"), result("c1")];
    expect(compactMessages(oneTurn)).toEqual({ messages: oneTurn, dropped: 0, reason: NOTHING_TO_DROP });
    expect(compactMessages([])).toEqual({ messages: [], dropped: 0, reason: NOTHING_TO_DROP });
  });

  it("不改传进来的数组", () => {
    const copy = structuredClone(HISTORY);
    compactMessages(HISTORY);
    expect(HISTORY).toEqual(copy);
  });

  it("再压缩一次：旧说明并进新说明，条数累加", () => {
    const first = compactMessages(HISTORY).messages; // 说明(6) + 第三轮
    const longer = [...first, reply("第三答"), user("第四问")];
    const { messages, dropped } = compactMessages(longer);
    expect(dropped).toBe(4); // 第三轮的 4 条；旧说明本身不算
    expect(messages).toEqual([user(compactionNote(10)), user("第四问")]);
  });

  it("只剩「说明 + 最后一轮」：没法再压缩", () => {
    const first = compactMessages(HISTORY).messages;
    expect(compactMessages(first)).toMatchObject({ dropped: 0, reason: NOTHING_TO_DROP });
  });

  it("开头没有用户消息的零散消息（比如恢复出的半截会话）也算在最早的一段里丢掉", () => {
    const odd = [reply("孤零零的回答"), user("问"), reply("答"), user("再问")];
    expect(compactMessages(odd)).toEqual({ messages: [user(compactionNote(3)), user("再问")], dropped: 3 });
  });
});
