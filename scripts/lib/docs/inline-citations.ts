import { definitionsNamed, namePath, type Definition } from "./definitions.ts";
import { isPiReference, rangeProblem, type CitationResolver, type Resolved } from "./resolver.ts";
import type { Problem } from "./types.ts";

// 只认这些扩展名，避免把 example.com:443 之类当成文件引用
const EXT = "(?:ts|tsx|mts|cts|js|mjs|cjs|json|jsonl|md|txt|ya?ml)";
// 完整引用：可带目录与步骤前缀，也可以只写文件名（main.ts:46）
const FULL = new RegExp(`(?<![\\w./@-])((?:[\\w@.-]+/)*[\\w.-]+\\.${EXT}):(\\d+)(?:-(\\d+))?(?!\\w)`, "g");
// 续写：`、:120-124`、`与 :126-136`，沿用同一行里上一个引用的文件
const CONTINUATION = /:(\d+)(?:-(\d+))?(?!\w)/g;
const CONTINUATION_BEFORE = /[、与和及,，(（\s]/;
const PATH_ONLY = new RegExp(`^(?:[\\w@.-]+/)*[\\w.-]+\\.${EXT}$|^(?:[\\w.-]+/)+$`);
// 整段行内代码就是一个引用（`src/main.ts:46`），它不是「点名的符号」
const FULL_ONE = new RegExp(`^(?:[\\w@.-]+/)*[\\w.-]+\\.${EXT}:\\d+(?:-\\d+)?$`);

// 正文里要先抹掉的部分：URL 与 HTML 注释（用空格占位，列位置不变）
function blankOut(line: string): string {
  const blank = (s: string) => " ".repeat(s.length);
  return line.replace(/<!--.*?-->/g, blank).replace(/\b[a-z][\w+.-]*:\/\/[^\s)>\]）」]+/gi, blank);
}

// 引用前面紧挨着的那个词若是 Pi 的包名@版本（如 `@earendil-works/pi-ai@1.6.0 src/x.ts:1`），也算 Pi 引用
function precededByPiPackage(before: string): boolean {
  const token = before.trimEnd().split(/\s+/).pop() ?? "";
  return token !== "" && isPiReference(token);
}

interface Anchor {
  end: number;
  resolved: Resolved;
}

interface Span {
  start: number;
  end: number;
  text: string;
}

const IDENT = /[A-Za-z_$][\w$]*/g;

/**
 * 引用点名的东西在不在被引的行里：行内代码原样出现，或者它最长的那个标识符出现
 * （`ReplyBuilder.finish` 对上 `finish(`，`createProviderStream(config)` 对上 `createProviderStream`）。
 */
export function mentions(lines: string[], symbol: string): boolean {
  const text = lines.join("\n");
  if (text.includes(symbol)) return true;
  const longest = [...symbol.matchAll(IDENT)].map((m) => m[0]).sort((a, b) => b.length - a.length)[0];
  return longest !== undefined && longest.length >= 3 && new RegExp(`(?<![\\w$])${longest.replace(/\$/g, "\\$")}(?![\\w$])`).test(text);
}

/** 正文一行里的一处行号引用（书站把它变成链接，文档检查器核对它） */
export interface InlineMatch {
  /** 引用原文：src/main.ts:46，续写时是 :120-124 */
  text: string;
  /** 在这一行里的起止列 */
  start: number;
  end: number;
  from: number;
  to: number;
  /** 引的是哪个文件；续写沿用同一行里上一个引用的 */
  resolved: Resolved;
  continuation: boolean;
  /** 引用前后最近的行内代码：两者有一个出现在被引的行里就算对上 */
  named: string[];
}

/** 找出一行正文里的所有行号引用：先是完整引用，再是续写（前文引用本身出错的续写不算） */
export function matchInlineLine(raw: string, resolver: CitationResolver): InlineMatch[] {
  const line = blankOut(raw);
  const anchors: Anchor[] = [];
  const taken: Array<[number, number]> = [];
  const piNames = new Set<string>();
  const out: InlineMatch[] = [];

  // 行内代码：引用自己所在的那些不算「点名的符号」
  const spans: Span[] = [...line.matchAll(/`([^`]+)`/g)].map((m) => ({ start: m.index, end: m.index + m[0].length, text: m[1] ?? "" }));
  // 文件名（`src/extensions.ts`、`package.json`）也不算：它说的是哪个文件，不是哪几行
  const isCitationSpan = (s: Span) =>
    FULL_ONE.test(s.text) || /^:\d+(-\d+)?$/.test(s.text) || isPiReference(s.text) || PATH_ONLY.test(s.text);
  const symbols = spans.filter((s) => !isCitationSpan(s));
  const named = (start: number, end: number): string[] => {
    const before = symbols.filter((s) => s.end <= start).pop();
    const after = symbols.find((s) => s.start >= end);
    return [before, after].filter((s): s is Span => s !== undefined).map((s) => s.text);
  };
  const push = (resolved: Resolved, text: string, m: RegExpMatchArray & { index: number }, fromGroup: number, continuation: boolean) => {
    const from = Number(m[fromGroup]);
    const to = m[fromGroup + 1] === undefined ? from : Number(m[fromGroup + 1]);
    const start = m.index;
    const end = start + m[0].length;
    out.push({ text, start, end, from, to, resolved, continuation, named: named(start, end) });
  };

  for (const m of line.matchAll(FULL)) {
    const start = m.index;
    const end = start + m[0].length;
    taken.push([start, end]);
    const cited = m[1] ?? "";
    const pi = isPiReference(cited) || precededByPiPackage(line.slice(0, start));
    if (pi) piNames.add(cited.split("/").pop() ?? cited);
    // 同一行前面引过 Pi 的 packages/…/loader.ts，后面的简写 loader.ts:631 也算 Pi
    const piShorthand = !cited.includes("/") && piNames.has(cited);
    const resolved: Resolved = pi || piShorthand ? { kind: "skip" } : resolver.resolve(cited);
    anchors.push({ end, resolved });
    push(resolved, m[0], m, 2, false);
  }

  for (const m of line.matchAll(CONTINUATION)) {
    const start = m.index;
    if (taken.some(([a, b]) => start >= a && start < b)) continue;
    // 往前跳过反引号，看分隔符是不是「、与和，」或空白
    let k = start - 1;
    while (k >= 0 && line[k] === "`") k--;
    if (k < 0 || !CONTINUATION_BEFORE.test(line[k] ?? "")) continue;
    const anchor = anchors.filter((a) => a.end <= start).pop();
    // 没有前文引用就无从判断；前文引用本身出错的已经报过，不重复
    if (anchor === undefined || anchor.resolved.kind === "error") continue;
    push(anchor.resolved, m[0], m, 1, true);
  }
  return out;
}

/** 检查一行正文里的所有行号引用，返回检查了几处 */
export function checkInlineLine(raw: string, lineNo: number, file: string, resolver: CitationResolver, problems: Problem[]): number {
  let count = 0;
  for (const x of matchInlineLine(raw, resolver)) {
    const { resolved, from, to } = x;
    if (resolved.kind === "skip") continue;
    count++;
    const cited = x.continuation && resolved.kind === "file" ? `${resolved.display}${x.text}` : x.text;
    if (resolved.kind === "error") {
      problems.push({ file, line: lineNo, message: `引用 ${cited}：${resolved.message}` });
      continue;
    }
    const bad = rangeProblem(cited, resolved.display, resolved.lines.length, from, to);
    if (bad !== undefined) {
      problems.push({ file, line: lineNo, message: bad });
      continue;
    }
    const cut = resolved.lines.slice(from - 1, to);
    if (x.named.length === 0) {
      problems.push({ file, line: lineNo, message: `引用 ${cited} 没有点名它指的是什么：在它前后用行内代码写出那几行里的一个符号（例如 \`delayMs\`）` });
    } else if (!x.named.some((name) => mentions(cut, name))) {
      const names = x.named.map((name) => `\`${name}\``).join(" 或 ");
      problems.push({ file, line: lineNo, message: `引用 ${cited} 点名的 ${names} 不在 ${resolved.display} 第 ${from === to ? from : `${from}-${to}`} 行里（代码移动了？）` });
    } else if (from !== to) {
      for (const message of cutDefinitions(x.named, from, to, resolver.definitions(resolved), cited, resolved.display)) problems.push({ file, line: lineNo, message });
    }
  }
  return count;
}

/**
 * 范围引用（:A-B）点名的若是一个定义（函数、类、方法、接口、类型、值为函数或对象的常量……），
 * 它碰到的那个定义必须整个落在范围里：从定义中间开始或结束的范围，多半是代码挪动后没跟着改的旧行号。
 * 单行引用（:N）只表示「这一行提到它」，不在此列。
 */
function cutDefinitions(named: readonly string[], from: number, to: number, definitions: readonly Definition[], cited: string, display: string): string[] {
  const out: string[] = [];
  for (const symbol of named) {
    const names = namePath(symbol);
    if (names === undefined) continue;
    for (const d of definitionsNamed(definitions, names)) {
      const touches = d.from <= to && d.to >= from;
      if (!touches || (from <= d.from && d.to <= to)) continue;
      out.push(`引用 ${cited} 切开了 \`${symbol}\` 的定义：\`${symbol}\` 在 ${display} 第 ${d.from}–${d.to} 行，引用写的是 ${from}–${to}（范围要盖住整个定义）`);
    }
  }
  return out;
}
