// Pi 源码引用检查器。
//
// Markdown 里一条 Pi 引用是一个行内代码片段：
//   `@earendil-works/pi-ai@1.6.0 src/utils/overflow.ts:132-160`   （区间）
//   `@earendil-works/pi-ai@1.6.0 src/utils/overflow.ts:132`       （单行）
// 紧跟其后、中间只隔着空白或 （ ( · — – : ： 的下一个行内代码片段，如果是一个标识符
// （`isContextOverflow`、`ExtensionRunner.emit`、`bindCore()`），就是这条引用点名的符号，
// 它的最后一段必须作为一个完整的词出现在被引用的行区间里。
// 围栏代码块（``` 或 ~~~）里的内容不检查，方便在文档里举反例。
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import {
  PI_PACKAGES,
  RESEARCH_DIR,
  installedPackageDir,
  readPinnedVersions,
  recoveredDir,
} from "./pi-packages.ts";
import { ensurePiSources } from "./source-maps.ts";

export interface Citation {
  /** Markdown 文件路径（调用方给的原样）。 */
  file: string;
  /** 1 起的行号。 */
  line: number;
  /** 反引号里的原文。 */
  raw: string;
  packageName: string;
  version: string;
  /** 包内相对路径，如 src/utils/overflow.ts。 */
  sourcePath: string;
  start: number;
  end: number;
  /** 点名的符号（原文，可能带限定前缀或 ()）。 */
  symbol?: string;
}

export interface Problem {
  file: string;
  line: number;
  message: string;
}

/** 引用检查需要的两样东西：每个包钉住的版本，以及按包内路径读源码。 */
export interface SourceResolver {
  /** 可以被引用的包，以及各自钉住的版本。 */
  pins: Readonly<Record<string, string>>;
  /** 读一个包内文件；不存在返回 undefined。 */
  readSource(packageName: string, version: string, sourcePath: string): string | undefined;
}

/** 引用片段本身的语法。包名只收 @earendil-works/ 下的，版本与路径不含空白。 */
const CITATION_RE = /^(@earendil-works\/[a-z0-9][a-z0-9._-]*)@(\S+)\s+(\S+?):(\d+)(?:-(\d+))?$/;
/** 引用与符号之间允许出现的分隔字符。逗号、顿号不算：那通常是在并列别的东西。 */
const SEPARATOR_RE = /^[\s（(·—–:：]+$/;
/** 可以作为符号的片段：标识符，可带 . 限定，可带一对空括号。 */
const SYMBOL_RE = /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*(?:\(\))?$/;
const SAFE_PATH_RE = /^[A-Za-z0-9_@.+-]+(?:\/[A-Za-z0-9_@.+-]+)*$/;

interface CodeSpan {
  content: string;
  start: number;
  end: number;
}

/** 按 CommonMark 的规则找出一行里的行内代码片段（不跨行）。 */
export function findCodeSpans(line: string): CodeSpan[] {
  const spans: CodeSpan[] = [];
  let i = 0;
  while (i < line.length) {
    const ch = line[i];
    if (ch === "\\") {
      i += 2;
      continue;
    }
    if (ch !== "`") {
      i++;
      continue;
    }
    let n = 0;
    while (line[i + n] === "`") n++;
    // 找长度恰好为 n 的闭合反引号串。
    let j = i + n;
    let close = -1;
    while (j < line.length) {
      if (line[j] !== "`") {
        j++;
        continue;
      }
      let m = 0;
      while (line[j + m] === "`") m++;
      if (m === n) {
        close = j;
        break;
      }
      j += m;
    }
    if (close === -1) {
      i += n;
      continue;
    }
    let content = line.slice(i + n, close);
    if (content.length >= 2 && content.startsWith(" ") && content.endsWith(" ") && content.trim() !== "") {
      content = content.slice(1, -1);
    }
    spans.push({ content, start: i, end: close + n });
    i = close + n;
  }
  return spans;
}

/** 一个片段像不像想写成 Pi 引用的东西：以 @earendil-works/ 开头且带空白。 */
function looksLikeCitation(content: string): boolean {
  return content.startsWith("@earendil-works/") && /\s/.test(content);
}

const FENCE_RE = /^ {0,3}(`{3,}|~{3,})/;

/** 从一份 Markdown 文本里提取引用；写法不合语法的引用直接记成问题。 */
export function extractCitations(markdown: string, file: string): { citations: Citation[]; problems: Problem[] } {
  const citations: Citation[] = [];
  const problems: Problem[] = [];
  let fence: { char: string; length: number } | undefined;
  const lines = markdown.split(/\r?\n/);
  lines.forEach((text, index) => {
    const line = index + 1;
    const marker = FENCE_RE.exec(text)?.[1];
    if (fence) {
      // 闭合围栏：同一种字符、不短于开头、后面不带别的文字。
      if (marker && marker[0] === fence.char && marker.length >= fence.length && text.trim() === marker) {
        fence = undefined;
      }
      return;
    }
    if (marker) {
      fence = { char: marker.charAt(0), length: marker.length };
      return;
    }
    const spans = findCodeSpans(text);
    spans.forEach((span, k) => {
      if (!looksLikeCitation(span.content)) return;
      const m = CITATION_RE.exec(span.content);
      if (!m) {
        problems.push({
          file,
          line,
          message:
            `引用格式不对：\`${span.content}\`。` +
            "应写成 `@earendil-works/<包>@<版本> <包内路径>:<行>` 或 `…:<起始行>-<结束行>`",
        });
        return;
      }
      const [, packageName = "", version = "", sourcePath = "", from = "", to] = m;
      const start = Number(from);
      const end = to === undefined ? start : Number(to);
      const citation: Citation = {
        file,
        line,
        raw: span.content,
        packageName,
        version,
        sourcePath,
        start,
        end,
      };
      const next = spans[k + 1];
      if (next && SEPARATOR_RE.test(text.slice(span.end, next.start)) && SYMBOL_RE.test(next.content)) {
        citation.symbol = next.content;
      }
      citations.push(citation);
    });
  });
  return { citations, problems };
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** 文件的行：末尾换行不算多出一行。 */
export function splitLines(content: string): string[] {
  const lines = content.split(/\r?\n/);
  if (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/** 符号要核对的那个词：去掉 ()，取 . 后的最后一段。 */
export function symbolWord(symbol: string): string {
  const bare = symbol.endsWith("()") ? symbol.slice(0, -2) : symbol;
  return bare.split(".").pop() ?? bare;
}

/** 核对一条引用；返回发现的问题（没有问题返回空数组）。 */
export function checkCitation(citation: Citation, resolver: SourceResolver): Problem[] {
  const at = (message: string): Problem[] => [{ file: citation.file, line: citation.line, message }];
  const { packageName, version, sourcePath, start, end } = citation;
  const pinned = resolver.pins[packageName];
  if (pinned === undefined) {
    return at(`\`${citation.raw}\`：${packageName} 不是可引用的包（只能引用 ${Object.keys(resolver.pins).join("、")}）`);
  }
  if (version !== pinned) {
    return at(`\`${citation.raw}\`：版本 ${version} 与钉住的版本 ${pinned} 不符（research/package.json）`);
  }
  if (!SAFE_PATH_RE.test(sourcePath) || sourcePath.split("/").some((seg) => seg === "." || seg === "..")) {
    return at(`\`${citation.raw}\`：路径 ${sourcePath} 必须是包内的相对路径，如 src/utils/overflow.ts`);
  }
  const content = resolver.readSource(packageName, version, sourcePath);
  if (content === undefined) {
    return at(`\`${citation.raw}\`：${packageName}@${version} 里没有文件 ${sourcePath}`);
  }
  const lines = splitLines(content);
  if (start < 1 || end < start || end > lines.length) {
    const why = start < 1 ? "行号从 1 开始" : end < start ? `结束行 ${end} 小于起始行 ${start}` : `超出文件末尾`;
    return at(`\`${citation.raw}\`：行区间 ${start}-${end} 无效（${why}；${sourcePath} 共 ${lines.length} 行）`);
  }
  if (citation.symbol !== undefined) {
    const word = symbolWord(citation.symbol);
    const re = new RegExp(`(?<![A-Za-z0-9_$])${escapeRegExp(word)}(?![A-Za-z0-9_$])`);
    const span = lines.slice(start - 1, end);
    if (!span.some((l) => re.test(l))) {
      const elsewhere = lines.findIndex((l) => re.test(l));
      const hint = elsewhere >= 0 ? `；它第一次出现在第 ${elsewhere + 1} 行` : `；整个文件里都没有它`;
      return at(`\`${citation.raw}\`：符号 ${citation.symbol} 不在第 ${start}-${end} 行里${hint}`);
    }
  }
  return [];
}

export interface CheckResult {
  files: string[];
  citations: Citation[];
  problems: Problem[];
}

/** 检查一组 Markdown 文件。file 字段用 displayPath 换算后的路径。 */
export function checkMarkdownFiles(
  files: string[],
  resolver: SourceResolver,
  displayPath: (file: string) => string = (f) => f,
): CheckResult {
  const citations: Citation[] = [];
  const problems: Problem[] = [];
  for (const file of files) {
    const extracted = extractCitations(readFileSync(file, "utf8"), displayPath(file));
    citations.push(...extracted.citations);
    problems.push(...extracted.problems);
    for (const c of extracted.citations) problems.push(...checkCitation(c, resolver));
  }
  problems.sort((a, b) => (a.file === b.file ? a.line - b.line : a.file < b.file ? -1 : 1));
  return { files, citations, problems };
}

export function formatProblem(p: Problem): string {
  return `${p.file}:${p.line}: ${p.message}`;
}

/**
 * 基于目录的解析器：每个包按 roots(包, 版本) 给出的目录依次查找文件。
 * 单元测试用它指向 fixture 目录。
 */
export function createDirResolver(
  pins: Record<string, string>,
  roots: (packageName: string, version: string) => string[],
): SourceResolver {
  return {
    pins,
    readSource(packageName, version, sourcePath) {
      for (const root of roots(packageName, version)) {
        const file = path.join(root, ...sourcePath.split("/"));
        if (existsSync(file) && statSync(file).isFile()) return readFileSync(file, "utf8");
      }
      return undefined;
    },
  };
}

/**
 * 真实的解析器：钉住的版本来自 research/package.json。
 * src/ 下的文件从 .pi-src（由 source map 还原，缺了就现场还原）读，
 * 其余文件（如 docs/extensions.md、package.json）从已安装的包目录读。
 */
export function createPinnedResolver(options: { researchDir?: string; piSrcDir?: string } = {}): SourceResolver {
  const researchDir = options.researchDir ?? RESEARCH_DIR;
  ensurePiSources({ researchDir, piSrcDir: options.piSrcDir });
  const pins = readPinnedVersions(researchDir);
  return createDirResolver(pins, (name, version) => {
    const roots = [recoveredDir(name, version, options.piSrcDir)];
    const installed = installedPackageDir(name, researchDir);
    const pkgJson = path.join(installed, "package.json");
    if (existsSync(pkgJson) && (JSON.parse(readFileSync(pkgJson, "utf8")) as { version: string }).version === version) {
      roots.push(installed);
    }
    return roots;
  });
}

const SKIP_DIRS = new Set(["node_modules", ".pi-src", ".git"]);

/** 递归列出 .md 文件（跳过 node_modules、.pi-src、.git 与 exclude 里的目录）。 */
export function findMarkdownFiles(target: string, exclude: string[] = []): string[] {
  if (!existsSync(target)) return [];
  const excluded = exclude.map((e) => path.resolve(e));
  const out: string[] = [];
  const walk = (p: string): void => {
    if (excluded.some((e) => p === e || p.startsWith(e + path.sep))) return;
    const st = statSync(p);
    if (st.isDirectory()) {
      if (SKIP_DIRS.has(path.basename(p))) return;
      for (const name of readdirSync(p).sort()) walk(path.join(p, name));
    } else if (st.isFile() && p.endsWith(".md")) {
      out.push(p);
    }
  };
  walk(path.resolve(target));
  return out;
}

/** 默认检查范围：仓库的 docs/ 与 research/ 里的笔记（不含测试 fixture）。 */
export function defaultMarkdownFiles(researchDir: string = RESEARCH_DIR): string[] {
  const docs = findMarkdownFiles(path.join(researchDir, "..", "docs"));
  const research = findMarkdownFiles(researchDir, [path.join(researchDir, "test", "fixtures")]);
  return [...docs, ...research];
}

export { PI_PACKAGES };

/**
 * 不给参数时（查 ../docs 与 research/ 全部）至少要查到这么多：今天是 13 个文件、551 条引用。
 * 少于它说明 docs/ 被挪走或没检出——这时「全部成立」不算数。真要减少，把数字一起改小并写明原因。
 */
export const CITATION_FLOORS = { files: 12, citations: 500 } as const;

/** 低于下限时的说明；达到时为空数组 */
export function citationFloorProblems(result: { files: readonly string[]; citations: readonly unknown[] }): string[] {
  const out: string[] = [];
  if (result.files.length < CITATION_FLOORS.files) out.push(`只查了 ${result.files.length} 个 Markdown 文件，期望至少 ${CITATION_FLOORS.files} 个（../docs 被挪走了？）`);
  if (result.citations.length < CITATION_FLOORS.citations) out.push(`只查到 ${result.citations.length} 条 Pi 引用，期望至少 ${CITATION_FLOORS.citations} 条`);
  return out;
}
