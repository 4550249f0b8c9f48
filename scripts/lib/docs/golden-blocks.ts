import fs from "node:fs";
import path from "node:path";
import { labsDir } from "../paths.ts";
import { normalizeEol } from "../text.ts";
import type { FencedBlock, ParsedChapter } from "./markdown.ts";
import type { Problem } from "./types.ts";

// <!-- golden: step07-abort-extensions --> 或 <!-- golden: step07-abort-extensions lines 3-9 -->
const MARKER = /^\s*<!--\s*golden:\s*(\S+?)(?:\s+lines\s+(\d+)(?:-(\d+))?)?\s*-->\s*$/;

function show(s: string | undefined): string {
  return s === undefined ? "（没有这一行）" : `「${s}」`;
}

/** 检查所有 golden 标记后的输出块，返回检查了几段 */
export function checkGoldenBlocks(chapter: ParsedChapter, file: string, root: string, problems: Problem[]): number {
  let count = 0;
  for (const [lineNo, text] of chapter.prose) {
    const m = MARKER.exec(text);
    if (m === null) continue;
    count++;
    const step = m[1] ?? "";
    // 标记后面允许空行，但下一个非空行必须是代码块的开头
    let next = lineNo + 1;
    while (next <= chapter.lines.length && (chapter.lines[next - 1] ?? "").trim() === "") next++;
    const block: FencedBlock | undefined = chapter.blocks.find((b) => b.fenceLine === next);
    if (block === undefined) {
      problems.push({ file, line: lineNo, message: `golden 标记后面应该紧跟一个代码块（${step} 的输出）` });
      continue;
    }
    const goldenFile = path.join(labsDir(root), step, "expected-output.txt");
    if (!fs.existsSync(goldenFile)) {
      problems.push({ file, line: lineNo, message: `找不到 ${step}/expected-output.txt（步骤不存在或还没生成 golden）` });
      continue;
    }
    let expected = normalizeEol(fs.readFileSync(goldenFile, "utf8"));
    if (expected.endsWith("\n")) expected = expected.slice(0, -1);
    let expectedLines = expected.split("\n");
    let offset = 0;
    if (m[2] !== undefined) {
      const from = Number(m[2]);
      const to = m[3] === undefined ? from : Number(m[3]);
      if (from < 1 || to < from || to > expectedLines.length) {
        problems.push({ file, line: lineNo, message: `golden 行号范围 ${from}-${to} 无效：${step}/expected-output.txt 共 ${expectedLines.length} 行` });
        continue;
      }
      expectedLines = expectedLines.slice(from - 1, to);
      offset = from - 1;
    }
    const actual = block.content;
    if (actual.join("\n") === expectedLines.join("\n")) continue;
    const total = Math.max(expectedLines.length, actual.length);
    for (let i = 0; i < total; i++) {
      if (expectedLines[i] === actual[i]) continue;
      const docLine = i < actual.length ? block.fenceLine + 1 + i : (block.closeLine ?? block.fenceLine + actual.length);
      problems.push({
        file,
        line: docLine,
        message: `输出与 ${step}/expected-output.txt 第 ${offset + i + 1} 行不一致：期望${show(expectedLines[i])}，实际${show(actual[i])}`,
      });
      break;
    }
  }
  return count;
}
