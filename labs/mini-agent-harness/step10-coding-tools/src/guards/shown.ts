/**
 * 外来的东西说给人听、显示在终端上：你写的代码抛出的任何值、Node 交来的错误、会话文件与模型送来的文字。
 * 这里的函数对任何值都返回一句话、自己从不抛：在 catch 块里描述错误时再抛一次，就是从宿主自己的防线里崩掉。
 */

/**
 * 一个外来的值说成一句话。被抛出的不一定是 Error：Object.create(null) 没有 toString，message 可能是会抛错的 getter，
 * Proxy 的每个陷阱都可能抛错，Symbol 放进模板字符串就抛 TypeError。
 */
export function describeError(value: unknown): string {
  try {
    const text: unknown = value instanceof Error ? value.message : value;
    // String() 认得 Symbol（模板字符串不认）；它调用的 toString 也可能抛，由下面接住
    return typeof text === "string" ? text : String(text);
  } catch {
    // typeof 不经过任何陷阱，对任何值都安全
    return `（无法转成文字的值：${typeof value}）`;
  }
}

/** 外来错误值上的错误码（ENOENT、EEXIST……）：不是字符串、读不出来（Proxy 的陷阱、会抛错的 getter）就是 undefined。 */
export function errorCode(value: unknown): string | undefined {
  try {
    const code: unknown = (value as { code?: unknown } | null | undefined)?.code;
    return typeof code === "string" ? code : undefined;
  } catch {
    return undefined;
  }
}

/**
 * 一句提示（[会话未保存]、[会话]）里引用的外来文字：你说的话、工具名、文件名、错误原因。原样写到终端，
 * ESC 序列能清屏、改窗口标题，双向控制符（U+202E 等）能把一句话倒着显示，换行能在下面伪造出另一句提示。
 * 所以控制字符连换行、制表符在内都写成看得见的 \x0a、\u202e，一句提示永远只占一行。会话文件里存的仍是原文。
 */
const NOT_ON_ONE_LINE = /[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/g;

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
  return (end < text.length ? `${text.slice(0, end)}…` : text).replace(NOT_ON_ONE_LINE, escaped);
}

/** 一个控制字符看得见的写法：\x1b、\u202e。 */
function escaped(ch: string): string {
  const code = ch.charCodeAt(0).toString(16);
  return ch < "\u0100" ? `\\x${code.padStart(2, "0")}` : `\\u${code.padStart(4, "0")}`;
}

/**
 * 终端上显示的外来文字（模型输出、工具结果、错误信息、扩展的名字）：ESC 序列能清屏、改窗口标题，双向控制符能把文字倒着显示。
 * 显示之前把它们写成看得见的 \x1b、\u202e；换行、制表符与 \r\n 照常。会话文件里存的仍是原文。
 */
export function visible(text: string): string {
  return text.replace(/\r(?!\n)|[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, escaped);
}

/** 终端上一段外来文字最多显示多少个字符。 */
export const MAX_SHOWN_CHARS = 2000;

/**
 * 工具调用的参数、工具结果、错误信息可能有几十 MB 而且没有换行：整段写到终端会刷掉几万屏、卡住终端。
 * 超过 max 个字符时只留开头，注明还有多少个字符没显示（按 Unicode 字符数，不把一个表情切成两半）；会话文件里是完整的原文。
 */
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

/** 输出端：process.stdout，或测试里手造的对象。 */
export interface TerminalOutput {
  isTTY?: boolean | undefined;
}

/**
 * 能不能写光标控制序列（原地改写一行、readline 的行编辑）：输出是终端，而且不是哑终端。
 * TERM=dumb（Emacs 的 shell、某些 CI 日志）认不得 ESC 序列，会把它们原样印成乱码。
 */
export function cursorAllowed(out: TerminalOutput = process.stdout, env: NodeJS.ProcessEnv = process.env): boolean {
  return out.isTTY === true && env.TERM !== "dumb";
}

/** 能不能上色：能写控制序列，而且没有设置 NO_COLOR（https://no-color.org 的通用约定；空串不算设置）。 */
export function colorAllowed(out: TerminalOutput = process.stdout, env: NodeJS.ProcessEnv = process.env): boolean {
  return cursorAllowed(out, env) && !env.NO_COLOR;
}
