/**
 * 终端能经得起什么：长得离谱的一行只显示开头，哑终端上不写颜色与光标控制序列。
 *
 *   - 工具调用的参数、工具结果、错误信息来自模型与扩展，可能有几十 MB 而且没有换行：
 *     整段写到终端会刷掉几万屏、卡住终端。终端上只显示开头，说清楚还有多少没显示；会话文件里仍是完整的原文。
 *   - TERM=dumb（Emacs 的 shell、某些 CI 日志）认不得 ESC 序列，会把它们原样印成乱码；
 *     NO_COLOR 是「不要颜色」的通用约定（https://no-color.org）。
 */

/** 终端上一段外来文字最多显示多少个字符。 */
export const MAX_SHOWN_CHARS = 2000;

/** 超过 max 个字符时只留开头，后面注明还有多少个字符没显示（按 Unicode 字符数，不把一个表情切成两半）。 */
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

/** 能不能写光标控制序列（原地改写一行、readline 的行编辑）：输出是终端，而且不是哑终端。 */
export function cursorAllowed(out: TerminalOutput = process.stdout, env: NodeJS.ProcessEnv = process.env): boolean {
  return out.isTTY === true && env.TERM !== "dumb";
}

/** 能不能上色：能写控制序列，而且没有设置 NO_COLOR（空串不算设置）。 */
export function colorAllowed(out: TerminalOutput = process.stdout, env: NodeJS.ProcessEnv = process.env): boolean {
  return cursorAllowed(out, env) && !env.NO_COLOR;
}
