/**
 * 会话的提示（[会话未保存]、[会话]）里引用的外来文字：你说的话、模型起的工具名、文件名、错误原因。
 *
 * 原样写到终端，ESC 序列能清屏、改窗口标题，双向控制符（U+202E 等）能把一句话倒着显示，
 * 换行能把一句提示拆成几行、在下面伪造出另一句提示。所以在这里连换行、制表符在内都写成看得见的 \x0a、\u202e，
 * 一句提示永远只占一行。会话文件里存的仍是原文。
 */

/** 控制字符（C0、DEL、C1）、双向控制符、行与段落分隔符：和渲染层的 visible 同一组，再加上换行与制表符。 */
const UNSHOWN = /[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/g;

/** text 在一句提示里的样子：最多 maxChars 个字符（按 Unicode 字符数，多出的写「…」），控制字符写成 \x1b、\u202e。 */
export function shownOnOneLine(text: string, maxChars = Number.POSITIVE_INFINITY): string {
  // 先截再转写：截断处不会落在 \x1b 这样的写法中间；逐个字符数到 maxChars 就停，不把几十 MB 拆成数组
  let end = 0;
  let count = 0;
  for (const ch of text) {
    if (count === maxChars) break;
    end += ch.length;
    count += 1;
  }
  const head = end < text.length ? `${text.slice(0, end)}…` : text;
  return head.replace(UNSHOWN, (ch) => (ch < "\u0100" ? `\\x${ch.charCodeAt(0).toString(16).padStart(2, "0")}` : `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`));
}
