// 书里印出的参考答案（<!-- solution: … --> 标出的代码块）收在折叠块里，标明是答案（issue 49 第 4 条：
// 毕业练习链到的深入页一打开就是完整的答案）。书站上它默认收起（book:test 的 answers 一项在浏览器里核对）。
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { listChapters, listDeepPages } from "../lib/docs-checker.ts";
import { repoRoot } from "../lib/paths.ts";

const lastIndex = (lines: string[], test: (line: string) => boolean): number => {
  for (let i = lines.length - 1; i >= 0; i--) if (test(lines[i] ?? "")) return i;
  return -1;
};

/** 每个 solution 块：它前面最近的 <details>/</details> 是不是一个还没关上的答案折叠块，它后面是不是先关上了这个块 */
function solutionBlocks(text: string): Array<{ line: number; inAnswer: boolean; closedAfter: boolean }> {
  const lines = text.replace(/\r\n/g, "\n").split("\n");
  const out: Array<{ line: number; inAnswer: boolean; closedAfter: boolean }> = [];
  for (const [i, line] of lines.entries()) {
    if (!/^<!-- solution: \S+ -->$/.test(line)) continue;
    const before = lines.slice(0, i);
    const open = lastIndex(before, (l) => /^<details\b/.test(l));
    const close = lastIndex(before, (l) => /^<\/details>/.test(l));
    const inAnswer = open > close && /^<details class="answer">$/.test(lines[open] ?? "") && /^<summary>参考答案/.test(lines[open + 1] ?? "");
    // 代码块结束之后，下一个 <details> 之前先有 </details>
    const fenceEnd = lines.findIndex((l, k) => k > i + 1 && /^```\s*$/.test(l));
    const after = lines.slice(fenceEnd + 1);
    const nextClose = after.findIndex((l) => /^<\/details>/.test(l));
    const nextOpen = after.findIndex((l) => /^<details\b/.test(l));
    out.push({ line: i + 1, inAnswer, closedAfter: fenceEnd > i && nextClose >= 0 && (nextOpen < 0 || nextClose < nextOpen) });
  }
  return out;
}

describe("书里的参考答案收在标明「参考答案」的折叠块里", () => {
  const pages = [...listChapters(repoRoot), ...listDeepPages(repoRoot)];

  it("每一段 solution 代码块都在 <details class=\"answer\"> 里，summary 以「参考答案」开头，块后就关上", () => {
    let found = 0;
    for (const page of pages) {
      for (const block of solutionBlocks(fs.readFileSync(path.join(repoRoot, "docs", ...page.split("/")), "utf8"))) {
        found++;
        expect(block, `docs/${page}:${block.line}`).toEqual({ line: block.line, inAnswer: true, closedAfter: true });
      }
    }
    // 毕业页上的两份答案
    expect(found).toBeGreaterThanOrEqual(2);
  });

  it("找折叠块的办法本身认得出露在外面的答案", () => {
    const bare = "# x\n\n<!-- solution: a.ts -->\n```ts\nx\n```\n";
    expect(solutionBlocks(bare)).toEqual([{ line: 3, inAnswer: false, closedAfter: false }]);
    const folded = '<details class="answer">\n<summary>参考答案：a</summary>\n\n<!-- solution: a.ts -->\n```ts\nx\n```\n\n</details>\n';
    expect(solutionBlocks(folded)).toEqual([{ line: 4, inAnswer: true, closedAfter: true }]);
  });
});
