/**
 * 最小的压缩：上下文溢出时，丢掉最早的几轮对话，换一句说明。
 *
 * Pi 的压缩会请模型把早先的对话写成摘要；这里只做最朴素的一步——整轮丢弃，
 * 让「溢出 → 压缩 → 重试一次」这条路先走通。
 *
 * 一「轮」从一条用户消息开始，到下一条用户消息之前为止：
 *   用户 → 助手(调用工具) → 工具结果 → 助手 | 用户 → …
 * 按整轮丢，工具调用与它的结果就永远在同一轮里，不会被拆开
 * （拆开的话，请求里会出现没有结果的调用或没有调用的结果，Provider 直接 400）。
 * 最后一轮（用户正在问的这一句）总是留下。
 *
 * 只改运行时的上下文：会话文件里每条消息都还在。
 */
import type { Message, UserMessage } from "../types.js";

/** 留在上下文开头的说明：告诉模型前面少了东西。 */
export function compactionNote(dropped: number): string {
  return `（早先的 ${dropped} 条消息因超出上下文窗口已被省略）`;
}

/** 认出我们自己留下的说明，取出它记的条数（再压缩一次时累加）。 */
const NOTE_PATTERN = /^（早先的 (\d+) 条消息因超出上下文窗口已被省略）$/;

export interface CompactionResult {
  /** 压缩后的消息；什么都没丢时就是原来那些（一份拷贝）。 */
  messages: Message[];
  /** 这次丢掉了几条消息（不含旧的说明本身）。0 表示没法压缩。 */
  dropped: number;
  /** dropped 为 0 时：为什么没法压缩。 */
  reason?: string;
}

export interface CompactionOptions {
  /** 最后留下几轮（至少 1），默认 1：只留用户正在问的这一轮。 */
  keepTurns?: number;
}

export const NOTHING_TO_DROP = "只剩最后一轮对话，没有可以省略的早先消息";

/** 丢掉最早的整轮，留下最后 keepTurns 轮，开头放一条说明。 */
export function compactMessages(messages: readonly Message[], options: CompactionOptions = {}): CompactionResult {
  const keepTurns = Math.max(1, Math.floor(options.keepTurns ?? 1));
  // 每一轮的起点：每条用户消息（我们自己的旧说明不算一轮）
  const starts: number[] = [];
  messages.forEach((message, index) => {
    if (message.role === "user" && !NOTE_PATTERN.test(message.content)) starts.push(index);
  });
  // 没有用户消息，或者轮数不比要留的多：没有可以丢的整轮
  const cut = starts.length > keepTurns ? starts[starts.length - keepTurns] : undefined;
  if (cut === undefined || cut === 0) {
    return { messages: [...messages], dropped: 0, reason: NOTHING_TO_DROP };
  }

  // 丢掉 cut 之前的全部；其中若有旧说明，它记的条数并进新说明里
  let dropped = 0;
  let earlier = 0;
  for (const message of messages.slice(0, cut)) {
    const note = message.role === "user" ? NOTE_PATTERN.exec(message.content) : null;
    if (note) earlier += Number(note[1]);
    else dropped++;
  }
  if (dropped === 0) return { messages: [...messages], dropped: 0, reason: NOTHING_TO_DROP };
  const note: UserMessage = { role: "user", content: compactionNote(earlier + dropped) };
  return { messages: [note, ...messages.slice(cut)], dropped };
}
