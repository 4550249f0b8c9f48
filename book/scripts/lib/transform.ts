// 把 docs/ 里的一章改写成站点用的 Markdown：原文件一个字节都不改，改的是 .gen/ 里的副本。
//   · 引用变成链接（实验引用 → 代码页，Pi 引用 → Pi 源码页）；
//   · `<!-- golden: … -->` 后面的输出块换成构建时读到的 expected-output.txt（不用章节里贴的那份）；
//   · ```mermaid 块换成构建时渲染好的 SVG 图，点开看原尺寸（构建时画不了的，交给读者的浏览器画）；
//   · 指向 docs/ 之外的相对链接换成站内页面。
import fs from "node:fs";
import path from "node:path";
import { parseChapter, type ParsedChapter } from "../../../scripts/lib/docs/markdown.ts";
import { normalizeEol } from "../../../scripts/lib/text.ts";
import { chapterCitations, type LabCitation, type PiCitation } from "./citations.ts";
import { LABS_DIR, ROOT, posix } from "./paths.ts";
import { figureNote, readableWidth } from "./mermaid-config.ts";
import { codeUrl, escapeHtml, piUrl, sessionUrl } from "./urls.ts";

/** 构建时画好的图（站内网址与尺寸），或留给读者的浏览器去画的图（live） */
export type Figure =
  | {
      /** 站内网址，例如 /figures/ab12….svg */
      url: string;
      width: number;
      height: number;
      /** 按原尺寸显示时最小的字（像素），构建时在浏览器里量的 */
      minFont?: number;
    }
  | { live: true };

/** 一张图在页面上的 HTML。live 的图把源码（base64，Markdown 与 Vue 都不会去解读它）放在 data-mermaid 里，主题的脚本来画 */
export function figureHtml(n: number, fig: Figure, code: string): string {
  if ("live" in fig) return `<figure class="mermaid-figure" data-figure="${n}" data-mermaid="${Buffer.from(code, "utf8").toString("base64")}"></figure>`;
  // 最多缩到最小的字还看得清（readableWidth）；页面更窄时图保持这个宽度，在 figure 里左右滑动
  const minWidth = readableWidth(fig.width, fig.minFont);
  // --min-width 是图本身（不含边框留白）最窄的宽度；样式表把 img 的留白加上去（style.css）
  const style = minWidth === undefined ? "" : ` style="--min-width:${minWidth}px"`;
  return (
    `<figure class="mermaid-figure" data-figure="${n}"><a href="${fig.url}" target="_blank" title="点击在新标签页里看原尺寸">` +
    `<img src="${fig.url}" width="${fig.width}" height="${fig.height}"${style} alt="图（Mermaid）" loading="lazy"></a>` +
    `<figcaption class="figure-note">${figureNote(minWidth)}</figcaption></figure>`
  );
}

/** 构建时 demo 没跑通的步骤，会话页的位置上说的话（步骤页上另附那一行说明） */
export const DEMO_DID_NOT_RUN = "构建书站时这一步的 demo 没有跑通，所以没有会话页：在步骤目录里运行 npm run demo 看原因（改好、或者 git stash 之后重新构建）。";

export interface TransformHooks {
  /** 渲染一段 Mermaid，返回图的网址与尺寸 */
  figure(code: string): Figure;
  /** 仓库里某个路径（posix，相对仓库根）在站内的网址；站里没有就返回 undefined */
  pageFor(repoPath: string): string | undefined;
  /** 某一步 demo 写下的会话文件名（有会话页面的步骤才有） */
  sessions(step: string): string[];
  /** 构建时这一步的 demo 没跑通：那一行说明（没有会话页的原因）；跑通了是 undefined */
  demoFailed?(step: string): string | undefined;
}

export interface CitationRecord {
  kind: "lab" | "pi";
  line: number;
  text: string;
  href: string;
  from: number;
  to: number;
  /** 实验引用：检查器认的符号；Pi 引用：点名的符号 */
  symbols: string[];
  block: boolean;
  /** 引用落在一段已经链接过的行内代码里，没能单独成为链接 */
  unlinked?: boolean;
}

export interface TransformResult {
  markdown: string;
  citations: CitationRecord[];
  figures: number;
  /** 本章引用过的代码文件：步骤 → 文件集合 */
  codeFiles: Map<string, Set<string>>;
  piFiles: Array<{ packageName: string; version: string; file: string }>;
}

const GOLDEN = /^\s*<!--\s*golden:\s*(\S+?)(?:\s+lines\s+(\d+)(?:-(\d+))?)?\s*-->\s*$/;

function goldenLines(step: string, from?: string, to?: string): string[] {
  let text = normalizeEol(fs.readFileSync(path.join(LABS_DIR, step, "expected-output.txt"), "utf8"));
  if (text.endsWith("\n")) text = text.slice(0, -1);
  const lines = text.split("\n");
  if (from === undefined) return lines;
  const a = Number(from);
  return lines.slice(a - 1, to === undefined ? a : Number(to));
}

/** 比内容里最长的反引号串还长一截的围栏，内容里有 ``` 也不会提前闭合 */
function fenceFor(lines: string[]): string {
  let longest = 2;
  for (const l of lines) for (const m of l.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
  return "`".repeat(longest + 1);
}

function anchor(href: string, inner: string, attrs: Record<string, string>): string {
  const extra = Object.entries(attrs)
    .map(([k, v]) => ` ${k}="${escapeHtml(v)}"`)
    .join("");
  // target="_self"：这些是静态页面，不让 VitePress 的前端路由接管（它会把它们当成站内的 Markdown 页去找）
  return `<a href="${escapeHtml(href)}" target="_self"${extra}>${inner}</a>`;
}

interface Replacement {
  start: number;
  end: number;
  html: string;
}

/** 一行正文里的引用换成链接：整段行内代码就是引用时，把整段包进链接 */
function linkLine(raw: string, lab: LabCitation[], pi: PiCitation[], record: (c: CitationRecord) => void): string {
  const spans = [...raw.matchAll(/`([^`]+)`/g)].map((m) => ({ start: m.index, end: m.index + m[0].length, text: m[1] ?? "" }));
  const reps: Replacement[] = [];
  const wrap = (start: number, end: number, text: string, href: string, attrs: Record<string, string>) => {
    const span = spans.find((s) => s.start <= start && end <= s.end);
    const inner = span === undefined ? escapeHtml(text) : `<code>${escapeHtml(text)}</code>`;
    if (span !== undefined && span.text.trim() !== text) {
      // 引用只是行内代码的一部分：链接整段（每段只链一次）
      if (reps.some((r) => r.start === span.start)) return false;
      reps.push({ start: span.start, end: span.end, html: anchor(href, `<code>${escapeHtml(span.text)}</code>`, attrs) });
      return true;
    }
    const from = span?.start ?? start;
    const to = span?.end ?? end;
    if (reps.some((r) => r.start < to && from < r.end)) return false;
    reps.push({ start: from, end: to, html: anchor(href, inner, attrs) });
    return true;
  };
  for (const c of lab) {
    const href = codeUrl(c.step, c.file, c.from, c.to);
    const ok = wrap(c.start, c.end, c.text, href, { class: "cite cite-lab", "data-lines": `${c.from}-${c.to}` });
    record({ kind: "lab", line: c.line, text: c.text, href, from: c.from, to: c.to, symbols: c.symbols, block: false, ...(ok ? {} : { unlinked: true }) });
  }
  for (const c of pi) {
    const href = piUrl(c.packageName, c.version, c.file, c.from, c.to);
    wrap(c.start, c.end, c.text, href, { class: "cite cite-pi", "data-lines": `${c.from}-${c.to}` });
    record({ kind: "pi", line: c.line, text: c.text, href, from: c.from, to: c.to, symbols: c.symbol === undefined ? [] : [c.symbol], block: false });
  }
  reps.sort((a, b) => b.start - a.start);
  let out = raw;
  for (const r of reps) out = out.slice(0, r.start) + r.html + out.slice(r.end);
  return out;
}

// 正文里我们自己会写的 HTML 标签；其余的 <xxx>（例如「builtin:<name>」）在 GitHub 上会被当成未知标签吞掉，
// 在 VitePress 里会让 Vue 的模板编译失败——书站把它们转义成文字
const KNOWN_TAG = /^<(?:\/?(?:a|p|code|br|img|figure|figcaption|span|sup|sub|details|summary|kbd|strong|em|b|i|div|table|thead|tbody|tr|td|th|ul|ol|li|hr|small)\b|!--)/i;

/** 行内代码之外、不是已知标签的 < 转义成 &lt; */
export function escapeStrayTags(line: string): string {
  let out = "";
  let i = 0;
  while (i < line.length) {
    if (line[i] === "`") {
      let n = 0;
      while (line[i + n] === "`") n++;
      const close = line.indexOf("`".repeat(n), i + n);
      if (close < 0) {
        out += line.slice(i);
        break;
      }
      out += line.slice(i, close + n);
      i = close + n;
      continue;
    }
    if (line[i] === "<" && !KNOWN_TAG.test(line.slice(i))) out += "&lt;";
    else out += line[i];
    i++;
  }
  return out;
}

/** 相对链接 [文字](../research/R12-conformance.md#row-x)：换成站内页面；站里没有的去掉链接、留下文字 */
export function rewriteLinks(line: string, fromRepoPath: string, hooks: TransformHooks): string {
  return line.replace(/(!?)\[([^\]]*)\]\(([^)\s]+)\)/g, (whole, bang: string, text: string, target: string) => {
    if (/^[a-z][\w+.-]*:/i.test(target) || target.startsWith("#") || target.startsWith("/")) return whole;
    const [pathPart = "", hash = ""] = target.split("#");
    const repoPath = posix(path.posix.normalize(path.posix.join(path.posix.dirname(fromRepoPath), decodeURI(pathPart))));
    if (bang === "!") return whole; // 图片：docs/images 原样复制，相对路径不变
    const page = hooks.pageFor(repoPath.replace(/\/$/, ""));
    if (page === undefined) return text;
    const full = hash === "" ? page : `${page}#${hash}`;
    // .md 是 VitePress 的页面（它自己检查死链）；其余是静态页面
    return page.endsWith(".md") ? `[${text}](${full})` : anchor(full, text, {});
  });
}

/** 改写一章。name 是 docs/ 下的文件名 */
export function transformChapter(name: string, available: ReadonlySet<string>, hooks: TransformHooks): TransformResult {
  const source = fs.readFileSync(path.join(ROOT, "docs", name), "utf8");
  const chapter: ParsedChapter = parseChapter(source);
  const cites = chapterCitations(ROOT, chapter, available, name);
  const citations: CitationRecord[] = [];
  const codeFiles = new Map<string, Set<string>>();
  const useFile = (step: string, file: string) => {
    let set = codeFiles.get(step);
    if (set === undefined) codeFiles.set(step, (set = new Set()));
    set.add(file);
  };
  for (const c of cites.lab) useFile(c.step, c.file);
  const piFiles = cites.pi.map((c) => ({ packageName: c.packageName, version: c.version, file: c.file }));

  const blockAt = new Map(chapter.blocks.map((b) => [b.fenceLine, b]));
  const goldenFor = new Map<number, { step: string; lines: string[] }>();
  for (const [lineNo, text] of chapter.prose) {
    const m = GOLDEN.exec(text);
    if (m === null) continue;
    let next = lineNo + 1;
    while (next <= chapter.lines.length && (chapter.lines[next - 1] ?? "").trim() === "") next++;
    if (blockAt.has(next)) goldenFor.set(next, { step: m[1] ?? "", lines: goldenLines(m[1] ?? "", m[2], m[3]) });
  }
  const labByLine = new Map<number, LabCitation[]>();
  for (const c of cites.lab) if (!c.block) labByLine.set(c.line, [...(labByLine.get(c.line) ?? []), c]);
  const piByLine = new Map<number, PiCitation[]>();
  for (const c of cites.pi) piByLine.set(c.line, [...(piByLine.get(c.line) ?? []), c]);
  const blockCite = new Map(cites.lab.filter((c) => c.block).map((c) => [c.line - 1, c]));

  const out: string[] = [];
  let figures = 0;
  let i = 1;
  const lines = chapter.lines;
  // front matter 原样保留（VitePress 也读它）：它占的行（含两条 ---）不改写
  const frontEnd = chapter.frontMatter.length > 0 ? (chapter.frontMatter.at(-1)?.[0] ?? 0) + 1 : 0;
  while (i <= lines.length) {
    const block = blockAt.get(i);
    if (block !== undefined) {
      const end = block.closeLine ?? lines.length;
      const raw = lines.slice(i - 1, end);
      const golden = goldenFor.get(i);
      const cite = blockCite.get(i);
      if (block.info.split(/\s+/)[0] === "mermaid") {
        figures++;
        const code = block.content.join("\n");
        out.push(figureHtml(figures, hooks.figure(code), code));
      } else if (golden !== undefined) {
        const fence = fenceFor(golden.lines);
        out.push(`${fence}${block.info === "" ? "text" : block.info}`, ...golden.lines, fence);
        const names = hooks.sessions(golden.step);
        if (hooks.demoFailed?.(golden.step) !== undefined) {
          out.push("", `<p class="session-links">🔎 ${escapeHtml(DEMO_DID_NOT_RUN)}</p>`);
        } else if (names.length > 0) {
          const links = names.map((n) => `<a href="${sessionUrl(golden.step, n)}" target="_self" class="session-link">${escapeHtml(n)}.jsonl</a>`).join("、");
          out.push("", `<p class="session-links">🔎 这段 demo 写下的会话，用会话查看器打开：${links}</p>`);
        }
      } else if (cite !== undefined) {
        const href = codeUrl(cite.step, cite.file, cite.from, cite.to);
        citations.push({ kind: "lab", line: cite.line, text: cite.text, href, from: cite.from, to: cite.to, symbols: [], block: true });
        const range = cite.from === cite.to ? `第 ${cite.from} 行` : `第 ${cite.from}–${cite.to} 行`;
        out.push(
          `<p class="cite-open">${anchor(href, `📄 ${escapeHtml(cite.step === "" ? cite.file : `${cite.step}/${cite.file}`)} ${range}`, { class: "cite cite-lab cite-block", "data-lines": `${cite.from}-${cite.to}` })}</p>`,
          "",
          ...raw,
        );
      } else {
        out.push(...raw);
      }
      i = end + 1;
      continue;
    }
    let text = lines[i - 1] ?? "";
    if (i > frontEnd) {
      text = linkLine(text, labByLine.get(i) ?? [], piByLine.get(i) ?? [], (c) => citations.push(c));
      text = escapeStrayTags(rewriteLinks(text, `docs/${name}`, hooks));
    }
    out.push(text);
    i++;
  }
  return { markdown: out.join("\n"), citations, figures, codeFiles, piFiles };
}

/** docs/README.md（首页）与 research 笔记之类的页面：只改链接与 Pi 引用，不动别的 */
export function transformPlain(repoPath: string, hooks: TransformHooks, record?: (c: CitationRecord) => void): { markdown: string; piFiles: TransformResult["piFiles"] } {
  const source = normalizeEol(fs.readFileSync(path.join(ROOT, ...repoPath.split("/")), "utf8"));
  const chapter = parseChapter(source);
  const cites = chapterCitations(ROOT, { ...chapter, blocks: [], prose: [] }, new Set(), repoPath);
  const piByLine = new Map<number, PiCitation[]>();
  for (const c of cites.pi) piByLine.set(c.line, [...(piByLine.get(c.line) ?? []), c]);
  const inBlock = new Set<number>();
  for (const b of chapter.blocks) for (let k = b.fenceLine; k <= (b.closeLine ?? chapter.lines.length); k++) inBlock.add(k);
  const out = chapter.lines.map((line, idx) => {
    const n = idx + 1;
    if (inBlock.has(n)) return line;
    const linked = rewriteLinks(linkLine(line, [], piByLine.get(n) ?? [], record ?? (() => {})), repoPath, hooks);
    // 首页表格里的步骤名（`step07-abort-extensions`）链到步骤页
    const withSteps = linked.replace(/(^|[^>])`(step\d{2}-[a-z0-9-]+)`/g, (m, pre: string, step: string) => {
      const page = hooks.pageFor(`labs/mini-agent-harness/${step}`);
      return page === undefined ? m : `${pre}[\`${step}\`](${page})`;
    });
    return escapeStrayTags(withSteps);
  });
  return { markdown: out.join("\n"), piFiles: cites.pi.map((c) => ({ packageName: c.packageName, version: c.version, file: c.file })) };
}
