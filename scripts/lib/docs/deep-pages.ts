import fs from "node:fs";
import path from "node:path";
import { parseChapter } from "./markdown.ts";
import type { Problem } from "./types.ts";

/** 一章最多这么多字节：书里自己的 8.5 是 46,944 字节，一次读完的上限取它的 1.3 倍 */
export const CHAPTER_MAX_BYTES = 61_000;

/** 深入页 = docs/deep/ 下的 .md；返回相对 docs/ 的名字，如 deep/8.6-hardening.md */
export function listDeepPages(root: string): string[] {
  const dir = path.join(root, "docs", "deep");
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith(".md") && e.name.toLowerCase() !== "readme.md")
    .map((e) => `deep/${e.name}`)
    .sort();
}

/** 深入页属于哪一章：deep/8.6-hardening.md → docs/ 下以 8.6- 开头的那一章 */
export function parentChapter(deepPage: string, chapters: readonly string[]): string | undefined {
  const n = /^deep\/(\d+\.\d+)-/.exec(deepPage)?.[1];
  return n === undefined ? undefined : chapters.find((c) => c.startsWith(`${n}-`));
}

// 正文里的相对链接 [文字](目标#锚点)；只管指向 docs/ 里另一页的（章节 ↔ 深入页）
const LINK = /\[[^\]]*\]\(([^)\s]+)\)/g;

function anchorsOf(text: string): Set<string> {
  return new Set([...text.matchAll(/\bid="([^"]+)"/g)].map((m) => m[1] ?? ""));
}

/**
 * 章节与深入页之间的约定：深入页名字的章节号对得上一章，并且那一章链到它；
 * 章节与深入页里指向 docs/ 内另一页的链接，文件要存在，#锚点要是那一页里的 id="…"。
 */
export function deepPageProblems(root: string, chapters: readonly string[], deepPages: readonly string[]): Problem[] {
  const problems: Problem[] = [];
  const docsDir = path.join(root, "docs");
  const read = (name: string) => fs.readFileSync(path.join(docsDir, ...name.split("/")), "utf8");
  const texts = new Map([...chapters, ...deepPages].map((n) => [n, read(n)]));
  const linked = new Set<string>();

  for (const [name, text] of texts) {
    const file = `docs/${name}`;
    for (const [lineNo, line] of parseChapter(text).prose) {
      for (const m of line.matchAll(LINK)) {
        const target = m[1] ?? "";
        if (/^[a-z][\w+.-]*:/i.test(target) || target.startsWith("/")) continue;
        const [pathPart = "", hash] = target.split("#");
        const resolved = pathPart === "" ? name : path.posix.normalize(path.posix.join(path.posix.dirname(name), decodeURI(pathPart)));
        if (resolved.startsWith("../") || !resolved.endsWith(".md")) continue;
        if (!texts.has(resolved)) {
          if (resolved !== "README.md") problems.push({ file, line: lineNo, message: `链接 ${target} 指向的 docs/${resolved} 不存在` });
          continue;
        }
        if (resolved !== name) linked.add(`${name}→${resolved}`);
        if (hash !== undefined && hash !== "" && !anchorsOf(texts.get(resolved) ?? "").has(hash)) {
          problems.push({ file, line: lineNo, message: `链接 ${target}：docs/${resolved} 里没有锚点 id="${hash}"（在目标处加 <a id="${hash}"></a>）` });
        }
      }
    }
  }

  for (const page of deepPages) {
    const parent = parentChapter(page, chapters);
    if (parent === undefined) {
      problems.push({ file: `docs/${page}`, line: 1, message: `深入页的名字要以章节号开头（如 deep/8.6-hardening.md），并且有那一章：${page} 找不到所属的章节` });
    } else if (!linked.has(`${parent}→${page}`)) {
      problems.push({ file: `docs/${page}`, line: 1, message: `docs/${parent} 没有链到这一页：读者从章节里找不到它` });
    }
  }
  return problems;
}

/** 一章超过 CHAPTER_MAX_BYTES 时的问题 */
export function chapterSizeProblems(root: string, chapters: readonly string[]): Problem[] {
  const problems: Problem[] = [];
  for (const name of chapters) {
    const bytes = fs.statSync(path.join(root, "docs", name)).size;
    if (bytes > CHAPTER_MAX_BYTES) {
      problems.push({ file: `docs/${name}`, line: 1, message: `本章 ${bytes} 字节，超过一次读完的上限 ${CHAPTER_MAX_BYTES}：把讲防御的部分挪到 docs/deep/ 的深入页，原处留一句链接` });
    }
  }
  return problems;
}
