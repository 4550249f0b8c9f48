import fs from "node:fs";
import path from "node:path";
import { checkCodeBlock } from "./docs/code-blocks.ts";
import { chapterSizeProblems, deepPageProblems, listDeepPages } from "./docs/deep-pages.ts";
import { readChapterSteps } from "./docs/front-matter.ts";
import { checkGoldenBlocks } from "./docs/golden-blocks.ts";
import { checkInlineLine } from "./docs/inline-citations.ts";
import { parseChapter } from "./docs/markdown.ts";
import { CitationResolver } from "./docs/resolver.ts";
import type { DocsStats, Problem } from "./docs/types.ts";
import { FLOORS, floorProblems } from "./floors.ts";
import { listSteps } from "./steps.ts";

export type { DocsStats, Problem } from "./docs/types.ts";
export { listDeepPages, parentChapter } from "./docs/deep-pages.ts";

/** 章节 = docs/ 下除 README.md 之外的 .md（不递归）；没有 docs/ 目录就是 0 章 */
export function listChapters(root: string): string[] {
  const dir = path.join(root, "docs");
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith(".md") && e.name.toLowerCase() !== "readme.md")
    .map((e) => e.name)
    .sort();
}

/** 一章或一页深入页（name 相对 docs/，如 deep/8.6-hardening.md）：引用、代码块、golden 输出块都同样核对 */
function checkChapter(root: string, name: string, available: ReadonlySet<string>, problems: Problem[], stats: DocsStats): void {
  const file = `docs/${name}`;
  const chapter = parseChapter(fs.readFileSync(path.join(root, "docs", ...name.split("/")), "utf8"));
  const { steps } = readChapterSteps(chapter.frontMatter);
  for (const s of steps) {
    if (!available.has(s.name)) {
      const list = [...available].join("、") || "（还没有任何步骤）";
      problems.push({ file, line: s.line, message: `front matter 里的步骤 ${s.name} 不存在；现有步骤：${list}` });
    }
  }
  const resolver = new CitationResolver(root, available, steps.map((s) => s.name));

  for (const block of chapter.blocks) {
    if (block.closeLine === undefined) problems.push({ file, line: block.fenceLine, message: "代码块没有闭合（缺少结尾的 ```）" });
    if (checkCodeBlock(block, file, resolver, problems)) stats.citations++;
  }
  for (const [lineNo, text] of chapter.prose) {
    stats.citations += checkInlineLine(text, lineNo, file, resolver, problems);
  }
  stats.transcripts += checkGoldenBlocks(chapter, file, root, problems);
  if (name.startsWith("deep/")) stats.deepPages++;
  else stats.chapters++;
}

/** 检查所有章节，同时返回统计数字（给命令行的通过提示用） */
export function checkDocsWithStats(rootDir: string): { problems: Problem[]; stats: DocsStats } {
  const available = new Set(listSteps(rootDir));
  const problems: Problem[] = [];
  const stats: DocsStats = { chapters: 0, deepPages: 0, citations: 0, transcripts: 0 };
  const chapters = listChapters(rootDir);
  const deepPages = listDeepPages(rootDir);
  for (const name of [...chapters, ...deepPages]) checkChapter(rootDir, name, available, problems, stats);
  problems.push(...deepPageProblems(rootDir, chapters, deepPages));
  // 一章要能一次读完：超过上限的，把讲防御的部分挪进 docs/deep/
  problems.push(...chapterSizeProblems(rootDir, chapters));
  // 按文件、行号排序；同一行保持发现顺序（sort 是稳定的）
  problems.sort((a, b) => (a.file === b.file ? a.line - b.line : a.file < b.file ? -1 : 1));
  return { problems, stats };
}

/** 纯函数式入口：只返回问题列表，空数组表示文档与代码一致 */
export function checkDocs(rootDir: string): Problem[] {
  return checkDocsWithStats(rootDir).problems;
}

const DOCS_LABELS = { chapters: "章", citations: "处代码引用", transcripts: "段输出" };

/** 数字低于下限时的问题（docs/ 被挪走、章节被清空时，「0 个问题」不等于通过） */
export function docsFloorProblems(stats: DocsStats): string[] {
  const { chapters, citations, transcripts } = FLOORS;
  return floorProblems({ ...stats }, { chapters, citations, transcripts }, DOCS_LABELS);
}

export interface Writer {
  write(text: string): unknown;
}

/** npm run docs:check：打印问题或通过的统计，返回退出码 */
export function runDocsCheck(root: string, out: Writer): number {
  const { problems, stats } = checkDocsWithStats(root);
  if (problems.length > 0) {
    for (const p of problems) out.write(`${p.file}:${p.line}: ${p.message}\n`);
    out.write(`\n文档检查失败：${problems.length} 个问题。\n`);
    return 1;
  }
  const low = docsFloorProblems(stats);
  if (low.length > 0) {
    for (const line of low) out.write(`docs/: ${line}\n`);
    out.write(`\n文档检查失败：查到的比下限少（${stats.chapters} 章，${stats.citations} 处代码引用，${stats.transcripts} 段输出；下限见 scripts/lib/floors.ts）。\n`);
    return 1;
  }
  out.write(`文档检查通过：${stats.chapters} 章（另有 ${stats.deepPages} 页深入），${stats.citations} 处代码引用，${stats.transcripts} 段输出\n`);
  return 0;
}
