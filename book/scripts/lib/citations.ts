// 找出一章里的每一处引用，以及它在 Markdown 里的位置，好把它变成链接。
//
// 判定规则不在这里重写：实验引用用根目录文档检查器的 CitationResolver 与 mentions，
// Pi 引用用 research/ 检查器的 extractCitations。这里只多记一样东西：引用在哪一行的哪几列。
// 正文里的引用由文档检查器的 matchInlineLine 找出（同一个函数，规则不会分叉）；
// 浏览器测试另外核对这里找到的实验引用数与 `npm run docs:check` 报告的一致。
import { parseCodeCitation } from "../../../scripts/lib/docs/code-blocks.ts";
import { readChapterSteps } from "../../../scripts/lib/docs/front-matter.ts";
import { matchInlineLine, mentions } from "../../../scripts/lib/docs/inline-citations.ts";
import type { ParsedChapter } from "../../../scripts/lib/docs/markdown.ts";
import { CitationResolver } from "../../../scripts/lib/docs/resolver.ts";
import { extractCitations } from "../../../research/scripts/lib/pi-citations.ts";

export interface LabCitation {
  kind: "lab";
  /** 章节里的行号（从 1 开始） */
  line: number;
  /** 在这一行里的起止列（原文，代码块引用时为整行） */
  start: number;
  end: number;
  /** 引用原文，例如 src/main.ts:46 */
  text: string;
  step: string;
  /** 步骤目录里的相对路径 */
  file: string;
  from: number;
  to: number;
  /** 检查器认的「点名的符号」（前后最近的行内代码）；代码块引用为空 */
  symbols: string[];
  /** true：这是代码块第一行的 // src/x.ts:A-B */
  block: boolean;
}

export interface PiCitation {
  kind: "pi";
  line: number;
  start: number;
  end: number;
  text: string;
  packageName: string;
  version: string;
  file: string;
  from: number;
  to: number;
  symbol?: string;
}

/** display 形如 step07-abort-extensions/src/main.ts：拆成步骤与文件；不属于步骤的（labs/scripted-provider/…）步骤为空、文件是仓库里的路径 */
function splitDisplay(display: string): { step: string; file: string } | undefined {
  const m = /^(step\d{2}-[a-z0-9-]+)\/(.+)$/.exec(display);
  return m === null ? { step: "", file: display } : { step: m[1] ?? "", file: m[2] ?? "" };
}

/** 一行正文里的实验引用：匹配交给文档检查器的 matchInlineLine（与 npm run docs:check 同一套规则），这里只留下指向实验文件的 */
function inlineCitations(raw: string, lineNo: number, resolver: CitationResolver): LabCitation[] {
  const out: LabCitation[] = [];
  for (const x of matchInlineLine(raw, resolver)) {
    if (x.resolved.kind !== "file") continue;
    const where = splitDisplay(x.resolved.display);
    if (where === undefined) continue;
    out.push({ kind: "lab", line: lineNo, start: x.start, end: x.end, text: x.text, ...where, from: x.from, to: x.to, symbols: x.named, block: false });
  }
  return out.sort((a, b) => a.start - b.start);
}

export interface ChapterCitations {
  lab: LabCitation[];
  pi: PiCitation[];
  /** 这一章 front matter 声明的步骤 */
  steps: string[];
}

/** 一章的全部引用：代码块第一行的、正文里的、Pi 的 */
export function chapterCitations(root: string, chapter: ParsedChapter, available: ReadonlySet<string>, name: string): ChapterCitations {
  const steps = readChapterSteps(chapter.frontMatter).steps.map((s) => s.name);
  const resolver = new CitationResolver(root, available, steps);
  const lab: LabCitation[] = [];
  for (const block of chapter.blocks) {
    const first = block.content[0];
    if (first === undefined) continue;
    const cite = parseCodeCitation(first);
    if (cite === undefined) continue;
    const resolved = resolver.resolve(cite.path);
    if (resolved.kind !== "file") continue;
    const where = splitDisplay(resolved.display);
    if (where === undefined) continue;
    const text = `${cite.path}:${cite.from}${cite.to === cite.from ? "" : `-${cite.to}`}`;
    lab.push({ kind: "lab", line: block.fenceLine + 1, start: 0, end: first.length, text, ...where, from: cite.from, to: cite.to, symbols: [], block: true });
  }
  for (const [lineNo, text] of chapter.prose) lab.push(...inlineCitations(text, lineNo, resolver));

  const pi: PiCitation[] = [];
  const { citations } = extractCitations(chapter.lines.join("\n"), name);
  for (const c of citations) {
    const lineText = chapter.lines[c.line - 1] ?? "";
    const start = lineText.indexOf(`\`${c.raw}\``);
    if (start < 0) continue;
    pi.push({
      kind: "pi",
      line: c.line,
      start,
      end: start + c.raw.length + 2,
      text: c.raw,
      packageName: c.packageName,
      version: c.version,
      file: c.sourcePath,
      from: c.start,
      to: c.end,
      symbol: c.symbol,
    });
  }
  return { lab, pi, steps };
}

/** 给测试用：引用点名的符号是否真在那几行里（与检查器同一个函数） */
export { mentions };
