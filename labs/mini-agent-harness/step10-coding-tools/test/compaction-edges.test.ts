/**
 * 压缩的边角（变异测试找出来的，见 scripts/mutation/）：开头的零散消息不单独算一轮；
 * 只有工具结果碰巧写成说明的样子时，它仍是一条普通消息。
 */
import { describe, expect, it } from "vitest";

import { compactMessages, compactionNote, NOTHING_TO_DROP } from "../src/retry/compaction.js";
import type { AssistantMessage, Message } from "../src/types.js";

const user = (content: string): Message => ({ role: "user", content });
const say = (text: string): AssistantMessage => ({ role: "assistant", content: [{ type: "text", text }], stopReason: "stop" });

describe("compactMessages 的边角", () => {
  it("只有一轮，前面还有几条零散消息：轮数不比要留的多，什么也不丢", () => {
    const messages = [say("恢复出的半截回答"), user("唯一的问题")];
    expect(compactMessages(messages)).toEqual({ messages, dropped: 0, reason: NOTHING_TO_DROP });
  });

  it("留两轮、正好两轮，前面有零散消息：同样什么也不丢", () => {
    const messages = [say("零散"), user("一问"), say("一答"), user("二问")];
    expect(compactMessages(messages, { keepTurns: 2 })).toEqual({ messages, dropped: 0, reason: NOTHING_TO_DROP });
  });

  it("工具结果的内容恰好像一条说明：它照样算一条被丢掉的消息，不当成旧说明累加", () => {
    const lookalike: Message = { role: "toolResult", toolCallId: "c1", toolName: "read_file", content: compactionNote(50), isError: false };
    const messages = [user("一问"), lookalike, say("一答"), user("二问")];
    expect(compactMessages(messages)).toEqual({ messages: [user(compactionNote(3)), user("二问")], dropped: 3 });
  });
});
