/**
 * 一条大得超过每行上限的消息（几百 MB 的工具结果、一段失控的回复）：截短了再存。
 *
 * 不存它、并且从此停止保存，这一次对话之后的每一条消息就都丢了；照原样存进去，下次读的时候
 * 这一行超过上限（session-lines.ts），整个文件打不开。所以写和读守同一个上限：把消息里过长的文字
 * 截短、在截断处注明原来多长，这一行放得下，之后的消息照常保存。屏幕上和这次对话里的消息仍是完整的。
 */

import { MAX_ENTRY_DEPTH, tooDeep } from "./json-depth.js";
import { entryLine, LineTooLong, whichMessage } from "./session-write.js";
import type { Message } from "./types.js";

/** 截短的条目：和 entryLine 收的一样，只要求里面有一条消息。 */
interface WithMessage {
  message: Message;
}

/**
 * 把条目写成一行；超过上限时把消息里过长的文字截短（文中注明），再写。tell 收到一句说明，
 * 告诉屏幕前的人会话文件里存的是截短的版本。截到很短仍放不下（比如上万段各自不长的文字），抛出 LineTooLong。
 */
export function lineWithinLimit(entry: WithMessage, maxLineBytes: number, tell: (line: string) => void): string {
  // 读的时候太深的一行会被拒收（session-entry.ts）：写之前守同一个上限，不写一行下次打不开的
  const deep = tooDeep(entry, MAX_ENTRY_DEPTH);
  if (deep) throw new Error(`这条消息${deep}，写进去下次就打不开，拒绝写入`);
  try {
    return entryLine(entry, maxLineBytes);
  } catch (error) {
    if (!(error instanceof LineTooLong)) throw error;
    // 单段文字的字符数不会少于它写出的字节数的 1/6（\u0000 这样的转义），先截到上限以内，免得再撞 V8 的字符串上限
    let keep = maxLineBytes;
    let bytes = error.bytes;
    for (let attempt = 0; attempt < 30 && keep > 0; attempt++) {
      if (bytes !== undefined) keep = Math.min(keep, Math.floor((keep * maxLineBytes) / bytes / 1.2));
      try {
        const line = entryLine({ ...entry, message: cutLongText(entry.message, keep) }, maxLineBytes);
        tell(`[会话] ${whichMessage(entry.message)}写成一行超过每行 ${maxLineBytes} 字节的上限：会话文件里存的是截短的版本（每段文字最多 ${keep} 个字符，截断处有注明），屏幕上和这次对话里它是完整的`);
        return line;
      } catch (again) {
        if (!(again instanceof LineTooLong)) throw again;
        bytes = again.bytes;
        if (bytes === undefined) keep = Math.floor(keep / 8);
      }
    }
    throw error;
  }
}

/** value 的一份副本：其中长于 keep 个字符的字符串截成 keep 个字符，并注明原来多长。原值不动。 */
function cutLongText<T>(value: T, keep: number): T {
  if (typeof value === "string") {
    if (value.length <= keep) return value;
    // 不把一个代理对（emoji 之类）切成两半
    const end = keep > 0 && /[\uD800-\uDBFF]/.test(value[keep - 1] ?? "") ? keep - 1 : keep;
    return `${value.slice(0, end)}…［会话文件只保存了前 ${end} 个字符，原文 ${value.length} 个字符］` as T;
  }
  if (Array.isArray(value)) {
    const items: unknown[] = [];
    for (let i = 0; i < value.length; i++) items.push(cutLongText(value[i] as unknown, keep));
    return items as T;
  }
  if (typeof value !== "object" || value === null) return value;
  // fromEntries 建的是自己的属性：copy["__proto__"] = … 却会换掉副本的原型，JSON.parse 给出的 "__proto__" 键就悄悄丢了
  return Object.fromEntries(Object.keys(value).map((key) => [key, cutLongText((value as Record<string, unknown>)[key], keep)])) as T;
}
