import type { FencedBlock } from "./markdown.ts";
import { matchExcerpt } from "./excerpt-match.ts";
import { rangeProblem, type CitationResolver } from "./resolver.ts";
import type { Problem } from "./types.ts";

// 代码块第一行形如 `// src/x.ts:A-B（节选）`：路径紧跟在 // 后面，后面可以再跟说明文字
const CITATION_COMMENT = /^\s*\/\/\s*([^\s:]+\.[A-Za-z]\w*):(\d+)(?:-(\d+))?(?![\w])/;

export interface CodeCitation {
  path: string;
  from: number;
  to: number;
}

export function parseCodeCitation(firstLine: string): CodeCitation | undefined {
  const m = CITATION_COMMENT.exec(firstLine);
  if (m === null) return undefined;
  const from = Number(m[2]);
  return { path: m[1] ?? "", from, to: m[3] === undefined ? from : Number(m[3]) };
}

/** 检查一个代码块；不是代码引用（或是 Pi 引用）时返回 false，不计数 */
export function checkCodeBlock(block: FencedBlock, file: string, resolver: CitationResolver, problems: Problem[]): boolean {
  const first = block.content[0];
  if (first === undefined) return false;
  const cite = parseCodeCitation(first);
  if (cite === undefined) return false;
  const resolved = resolver.resolve(cite.path);
  if (resolved.kind === "skip") return false;

  const citeLine = block.fenceLine + 1;
  const label = `${cite.path}:${cite.from}${cite.to === cite.from ? "" : `-${cite.to}`}`;
  if (resolved.kind === "error") {
    problems.push({ file, line: citeLine, message: `代码引用 ${label}：${resolved.message}` });
    return true;
  }
  const bad = rangeProblem(label, resolved.display, resolved.lines.length, cite.from, cite.to);
  if (bad !== undefined) {
    problems.push({ file, line: citeLine, message: bad });
    return true;
  }
  const mismatch = matchExcerpt(block.content.slice(1), resolved.lines, cite.from, cite.to);
  if (mismatch !== undefined) {
    problems.push({
      file,
      line: citeLine + 1 + mismatch.docIndex,
      message: `代码块与 ${resolved.display}:${cite.from}-${cite.to} 不一致：${mismatch.message}`,
    });
  }
  return true;
}
