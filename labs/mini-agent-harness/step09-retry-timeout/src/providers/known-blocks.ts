/**
 * 会话里可能有我们不认识的内容块：别的工具写的会话文件、将来的版本（例如 {"type":"image"}）。
 * 两种协议都带不了它：原样编码，Anthropic 会收到一个没有 text 的文本块，这个会话之后的每一次请求都被拒收。
 * 发请求时把它拿掉，说一行（每条消息只说一次）；会话文件与上下文里它照样在。
 */
import type { AssistantMessage, Message } from "../types.js";

const KNOWN = new Set(["text", "thinking", "toolCall"]);
const noted = new WeakSet<AssistantMessage>();

/** 助手消息里只留请求带得了的块；没有别的块时原样返回同一个对象。 */
export function onlyKnownBlocks(message: Message): Message {
  if (message.role !== "assistant") return message;
  const typeOf = (block: object): unknown => (block as { type?: unknown }).type;
  const unknown = message.content.filter((block) => !KNOWN.has(typeOf(block) as string));
  if (unknown.length === 0) return message;
  if (!noted.has(message)) {
    noted.add(message);
    // JSON.stringify 让类型名里的控制字符显示成转义，而不是在终端上生效
    const types = unknown.map((block) => JSON.stringify(typeOf(block)) ?? "undefined").join("、").slice(0, 80);
    console.warn(`[警告] 会话里有一条助手消息带着请求发不了的内容块（type：${types}）：这次请求不带它们，会话文件里照样保存着`);
  }
  return { ...message, content: message.content.filter((block) => KNOWN.has(typeOf(block) as string)) };
}
