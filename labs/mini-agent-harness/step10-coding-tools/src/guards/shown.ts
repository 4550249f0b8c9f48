/**
 * 外来的东西说给人听、显示在终端上：你写的代码抛出的任何值、Node 交来的错误、会话文件与模型送来的文字。
 * 这里的函数对任何值都返回一句话、自己从不抛：在 catch 块里描述错误时再抛一次，就是从宿主自己的防线里崩掉。
 */

/** read() 的结果；它一抛（Proxy 的陷阱、会抛错的 getter、已经没了的文件）就是 fallback。 */
export function tryOr<T>(fallback: T, read: () => T): T {
  try {
    return read();
  } catch {
    return fallback;
  }
}

/** 一个外来的值说成一句话。被抛出的不一定是 Error：Object.create(null) 没有 toString，message 可能是会抛错的 getter。 */
export function describeError(value: unknown): string {
  // typeof 不经过任何陷阱；String() 认得 Symbol（模板字符串不认），它调用的 toString 也可能抛
  return tryOr(`（无法转成文字的值：${typeof value}）`, () => {
    const text: unknown = value instanceof Error ? value.message : value;
    return typeof text === "string" ? text : String(text);
  });
}

/** 外来错误值上的错误码（ENOENT、EEXIST……）：不是字符串、读不出来就是 undefined。 */
export function errorCode(value: unknown): string | undefined {
  const code = tryOr(undefined, () => (value as { code?: unknown } | null | undefined)?.code);
  return typeof code === "string" ? code : undefined;
}

/**
 * 一句提示（[会话未保存]、[会话]）里引用的外来文字：ESC 序列能清屏、改窗口标题，双向控制符（U+202E 等）能把一句话倒着显示，
 * 换行能在下面伪造出另一句提示。所以控制字符连换行在内都写成看得见的 \x0a、\u202e，一句提示永远只占一行。
 */
const NOT_ON_ONE_LINE = /[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/g;

/** text 在一句提示里的样子：最多 maxChars 个字符（按 Unicode 字符数，多出的写「…」），控制字符看得见。 */
export function shownOnOneLine(text: string, maxChars = Number.POSITIVE_INFINITY): string {
  // 先截再转写：截断处不会落在 \x1b 这样的写法中间；逐个字符数到 maxChars 就停，不把几十 MB 拆成数组
  let end = 0;
  let count = 0;
  for (const ch of text) {
    if (count === maxChars) break;
    end += ch.length;
    count += 1;
  }
  return (end < text.length ? `${text.slice(0, end)}…` : text).replace(NOT_ON_ONE_LINE, escaped);
}

function escaped(ch: string): string {
  const code = ch.charCodeAt(0).toString(16);
  return ch < "\u0100" ? `\\x${code.padStart(2, "0")}` : `\\u${code.padStart(4, "0")}`;
}

/** 终端上显示的外来文字（模型输出、工具结果、错误信息）：控制字符同样写成看得见的，但换行、制表符与 \r\n 照常。会话文件里存的仍是原文。 */
export function visible(text: string): string {
  return text.replace(/\r(?!\n)|[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, escaped);
}

export const MAX_SHOWN_CHARS = 2000;

/** 几十 MB、没有换行的工具结果整段写到终端会刷掉几万屏：只留开头 max 个字符（不把表情切成两半），注明省略了多少。 */
export function clipForTerminal(text: string, max = MAX_SHOWN_CHARS): string {
  if (text.length <= max) return text;
  let end = max;
  if (isLowSurrogate(text.charCodeAt(end)) && end > 0) end -= 1;
  let rest = 0;
  for (let i = end; i < text.length; i++) if (!isLowSurrogate(text.charCodeAt(i))) rest += 1;
  return `${text.slice(0, end)} …（终端上省略了 ${rest} 个字符，会话文件里是完整的）`;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

export interface TerminalOutput {
  isTTY?: boolean | undefined;
}

/** 能不能写光标控制序列：输出是终端，而且不是 TERM=dumb（Emacs 的 shell、某些 CI 日志认不得 ESC 序列，会印成乱码）。 */
export function cursorAllowed(out: TerminalOutput = process.stdout, env: NodeJS.ProcessEnv = process.env): boolean {
  return out.isTTY === true && env.TERM !== "dumb";
}

/** 能不能上色：能写控制序列，而且没有设置 NO_COLOR（https://no-color.org 的通用约定；空串不算设置）。 */
export function colorAllowed(out: TerminalOutput = process.stdout, env: NodeJS.ProcessEnv = process.env): boolean {
  return cursorAllowed(out, env) && !env.NO_COLOR;
}
