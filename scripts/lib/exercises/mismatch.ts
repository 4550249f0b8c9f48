/**
 * 两个长值不相等时，只打印第一处不同的地方：前后各约 20 个字符，再加上两边的长度。
 *
 * 为什么：练习 7 的长随机用例按 UTF-16 单元倒序时，「看到」整行是 1500 多个字符的 \udfb7\ud842…，
 * 在终端里占六十来行，把真正有用的第一项失败推出屏幕。学习者要知道的只是「从哪里开始不对、对的应该是什么」。
 */

/** 第一处不同的前后各取多少个字符（按码点数：不把 emoji 切成两半）。 */
export const CONTEXT_CHARS = 20;
/** 一边的片段转义之后最多多长：全是拆开的代理项时每个字符要写成 6 个字符（\udfb7），仍然不让一行太长。 */
const MAX_PIECE = 64;
/** 显示出来（转义后）比这长，才只打印片段；短的值整个打印更好读。 */
export const LONG_VALUE = 80;

const isHigh = (unit: number): boolean => unit >= 0xd800 && unit <= 0xdbff;
const isLow = (unit: number): boolean => unit >= 0xdc00 && unit <= 0xdfff;

/** 第一处不同的下标（UTF-16 单元）；落在一对代理项中间时退到这一对的开头。相同时是 -1。 */
export function firstDifference(a: string, b: string): number {
  if (a === b) return -1;
  let at = 0;
  while (at < a.length && at < b.length && a.charCodeAt(at) === b.charCodeAt(at)) at++;
  return at > 0 && isHigh(a.charCodeAt(at - 1)) ? at - 1 : at;
}

/** 从 at 往前（step = -1）或往后（step = 1）取至多 n 个码点，转义后不超过 MAX_PIECE。返回片段与它的另一端。 */
function piece(text: string, at: number, n: number, step: 1 | -1): { text: string; end: number } {
  let end = at;
  for (let count = 0; count < n; count++) {
    let next = end;
    if (step === 1 && next < text.length) next += isHigh(text.charCodeAt(next)) && isLow(text.charCodeAt(next + 1)) ? 2 : 1;
    else if (step === -1 && next > 0) next -= isLow(text.charCodeAt(next - 1)) && isHigh(text.charCodeAt(next - 2)) ? 2 : 1;
    if (next === end) break;
    const candidate = step === 1 ? text.slice(at, next) : text.slice(next, at);
    if (JSON.stringify(candidate).length > MAX_PIECE) break;
    end = next;
  }
  return { text: step === 1 ? text.slice(at, end) : text.slice(end, at), end };
}

/** 一边的显示：…"前文" ▸ "从不同处起"…（省略号表示那一头还有；quote 为 false 时不加引号、不转义） */
function excerpt(text: string, at: number, quote: boolean): string {
  const show = (s: string): string => (quote ? JSON.stringify(s) : s);
  const head = piece(text, at, CONTEXT_CHARS, -1);
  const tail = piece(text, at, CONTEXT_CHARS, 1);
  const left = head.end > 0 ? "…" : "";
  const right = tail.end < text.length ? "…" : "";
  const after = at >= text.length ? "（到此结束）" : show(tail.text);
  return `${left}${head.text === "" && left === "" ? "" : `${show(head.text)} `}▸ ${after}${right}`;
}

/** 报告里一行「看到：」「期望：」最多这么长（别的检查自己写下的长文字也一样截）。 */
export const MAX_SHOWN = 180;

export interface Mismatch {
  /** 哪里开始不同、两边多长（一行） */
  where: string;
  saw: string;
  expected: string;
}

/**
 * 两个字符串的第一处不同，给人看。raw：两边是原始的字符串（下标是 JS 的字符串下标，片段转义后显示）；
 * 否则两边已经是显示用的文字（例如 JSON），片段原样显示，位置按显示的文字数。
 */
export function describeMismatch(saw: string, expected: string, raw: boolean): Mismatch | undefined {
  const at = firstDifference(saw, expected);
  if (at < 0) return undefined;
  const where = raw
    ? `第一处不同在下标 ${at}（JS 字符串下标，从 0 数）；长度（.length，按 UTF-16 单元计）：看到 ${saw.length}，期望 ${expected.length}`
    : `显示出来的文字从第 ${at + 1} 个字符起不同；长度：看到 ${saw.length}，期望 ${expected.length}`;
  return { where, saw: excerpt(saw, at, raw), expected: excerpt(expected, at, raw) };
}

/**
 * 报告打印一项失败之前：看到的、期望的太长（检查器自己写下的文字，没经过 same()）时，
 * 两边都有就只留第一处不同的前后，只有一边就截短并说出全长。
 */
export function fitForReport<T extends { saw?: string; expected?: string; diff?: string }>(check: T): T {
  const { saw, expected } = check;
  const long = (text: string | undefined): boolean => text !== undefined && text.length > MAX_SHOWN;
  if (check.diff !== undefined || (!long(saw) && !long(expected))) return check;
  const mismatch = saw !== undefined && expected !== undefined ? describeMismatch(saw, expected, false) : undefined;
  if (mismatch) return { ...check, saw: mismatch.saw, expected: mismatch.expected, diff: mismatch.where };
  const cut = (text: string | undefined): string | undefined => (long(text) ? `${[...(text as string)].slice(0, MAX_SHOWN - 20).join("")}…（共 ${(text as string).length} 个字符）` : text);
  return { ...check, saw: cut(saw), expected: cut(expected) };
}
