// 节选比对：代码块里的 `// …` 行可以代表源码里任意多行（包括零行），
// 行内的 `/* … */` 可以代表这一行里任意一段文字。其余行必须与源码逐行一致（忽略行尾空白）。

const MARKER_LINE = /^\s*\/\/\s*(?:…|\.\.\.)/;
const INLINE_MARKER = /\/\*\s*(?:…|\.\.\.)[\s\S]*?\*\//g;
const HAS_INLINE_MARKER = new RegExp(INLINE_MARKER.source);

export function isElisionLine(line: string): boolean {
  return MARKER_LINE.test(line);
}

type LineMatcher = (source: string) => boolean;

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

function leadingWhitespace(line: string): number {
  return line.length - line.trimStart().length;
}

// dedent：书里的节选常把整段左移同样的空格数，源码每行先去掉这么多前导空白再比
function matcherFor(docLine: string, dedent: number): LineMatcher {
  const want = docLine.trimEnd();
  const strip = (source: string): string | undefined => {
    const s = source.trimEnd();
    if (s === "") return "";
    return leadingWhitespace(s) >= dedent ? s.slice(dedent) : undefined;
  };
  if (!HAS_INLINE_MARKER.test(want)) return (source) => strip(source) === want;
  const pattern = want.split(INLINE_MARKER).map(escapeRegExp).join("[\\s\\S]*?");
  const re = new RegExp(`^${pattern}$`);
  return (source) => {
    const s = strip(source);
    return s !== undefined && re.test(s);
  };
}

export interface ExcerptMismatch {
  /** 出问题的是代码块里的第几行（0 起，不含第一行引用注释） */
  docIndex: number;
  message: string;
}

interface Segment {
  start: number; // 在代码块里的起始下标
  matchers: LineMatcher[];
}

/**
 * 比对代码块与源码 [from, to] 这几行。source 是整个文件的行，from/to 从 1 开始。
 * 允许整段统一少缩进若干空格（书里的节选常这样排版）。
 * 成功返回 undefined；失败时给出第一处说得清的差异。
 */
export function matchExcerpt(docLines: readonly string[], source: readonly string[], from: number, to: number): ExcerptMismatch | undefined {
  const range = source.slice(from - 1, to);
  if (docLines.length === 0) return { docIndex: 0, message: "代码块除了引用注释之外是空的" };
  const maxIndent = Math.min(40, Math.max(0, ...range.map(leadingWhitespace)));
  let best: ExcerptMismatch | undefined;
  for (let dedent = 0; dedent <= maxIndent; dedent++) {
    const mismatch = matchWithDedent(docLines, range, from, to, dedent);
    if (mismatch === undefined) return undefined;
    // 报告「走得最远」的那种缩进下的差异，最接近作者的本意
    if (best === undefined || mismatch.docIndex > best.docIndex) best = mismatch;
  }
  return best;
}

function matchWithDedent(docLines: readonly string[], range: readonly string[], from: number, to: number, dedent: number): ExcerptMismatch | undefined {
  const n = range.length;
  const segments: Segment[] = [];
  docLines.forEach((line, i) => {
    if (isElisionLine(line)) return;
    const last = segments[segments.length - 1];
    const prevIsMarker = i === 0 || isElisionLine(docLines[i - 1] ?? "");
    if (last === undefined || prevIsMarker) segments.push({ start: i, matchers: [matcherFor(line, dedent)] });
    else last.matchers.push(matcherFor(line, dedent));
  });
  const leading = isElisionLine(docLines[0] ?? "");
  const trailing = isElisionLine(docLines[docLines.length - 1] ?? "");

  const fitsAt = (seg: Segment, at: number): number => {
    let k = 0;
    while (k < seg.matchers.length && at + k < n && seg.matchers[k]?.(range[at + k] ?? "") === true) k++;
    return k; // 从 at 开始连续匹配了几行
  };

  // 完整搜索（带记忆）：第 i 段能否从 pos 之后的某处开始，并让后面各段都放得下
  const memo = new Map<string, boolean>();
  const solve = (i: number, pos: number): boolean => {
    const seg = segments[i];
    if (seg === undefined) return trailing || pos === n;
    const key = `${i}:${pos}`;
    const cached = memo.get(key);
    if (cached !== undefined) return cached;
    const anchored = i === 0 && !leading;
    let ok = false;
    for (let at = pos; at + seg.matchers.length <= n && !ok; at++) {
      if (fitsAt(seg, at) === seg.matchers.length) ok = solve(i + 1, at + seg.matchers.length);
      if (anchored) break;
    }
    memo.set(key, ok);
    return ok;
  };
  if (solve(0, 0)) return undefined;
  return diagnose(docLines, segments, range, from, to, leading, trailing, fitsAt);
}

// 对不上时用贪心走一遍，找出第一处能说清楚的差异
function diagnose(
  docLines: readonly string[],
  segments: Segment[],
  range: readonly string[],
  from: number,
  to: number,
  leading: boolean,
  trailing: boolean,
  fitsAt: (seg: Segment, at: number) => number,
): ExcerptMismatch {
  const n = range.length;
  const show = (s: string | undefined) => (s === undefined || s.trim() === "" ? "（空行）" : `「${s.trimEnd()}」`);
  const lineAt = (at: number, k: number, seg: Segment): ExcerptMismatch => {
    const docIndex = seg.start + k;
    if (at + k >= n) {
      return { docIndex, message: `代码块超出了引用范围（到第 ${to} 行为止），多出的一行是${show(docLines[docIndex])}` };
    }
    return { docIndex, message: `源文件第 ${from + at + k} 行是${show(range[at + k])}，文档里写的是${show(docLines[docIndex])}` };
  };

  let pos = 0;
  for (const [i, seg] of segments.entries()) {
    if (i === 0 && !leading) {
      const k = fitsAt(seg, 0);
      if (k < seg.matchers.length) return lineAt(0, k, seg);
      pos = seg.matchers.length;
      continue;
    }
    let bestAt = -1;
    let bestLen = 0;
    for (let at = pos; at < n; at++) {
      const k = fitsAt(seg, at);
      if (k === seg.matchers.length) {
        bestAt = at;
        bestLen = k;
        break;
      }
      if (k > bestLen) {
        bestAt = at;
        bestLen = k;
      }
    }
    if (bestLen === 0) {
      return { docIndex: seg.start, message: `在源文件第 ${from + pos}-${to} 行里找不到这一行：${show(docLines[seg.start])}` };
    }
    if (bestLen < seg.matchers.length) return lineAt(bestAt, bestLen, seg);
    pos = bestAt + bestLen;
  }
  const lastSeg = segments[segments.length - 1];
  if (!trailing && lastSeg !== undefined && pos < n) {
    const docIndex = lastSeg.start + lastSeg.matchers.length - 1;
    return {
      docIndex,
      message: `代码块停在源文件第 ${from + pos - 1} 行，但引用范围到第 ${to} 行（下一行是${show(range[pos])}）；请改范围或在结尾加 // … 省略标记`,
    };
  }
  // 贪心也走通了说明是搜索之外的情况，给个笼统提示
  return { docIndex: 0, message: `代码块与源文件第 ${from}-${to} 行对不上` };
}
