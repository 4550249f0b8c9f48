// 真实文档里的每一条 Pi 引用都必须对得上钉住版本的源码：../docs/**/*.md 与 research/**/*.md。
// docs/ 还不存在时按零个文件处理。
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  checkMarkdownFiles,
  citationFloorProblems,
  createPinnedResolver,
  defaultMarkdownFiles,
  formatProblem,
} from "../scripts/lib/pi-citations.ts";
import { RESEARCH_DIR } from "../scripts/lib/pi-packages.ts";

describe("Pi citations in docs/ and research/", () => {
  it("all hold against the pinned sources", () => {
    const files = defaultMarkdownFiles();
    const result = checkMarkdownFiles(files, createPinnedResolver(), (f) =>
      path.relative(path.join(RESEARCH_DIR, ".."), f),
    );
    // 把问题原样列出来，失败时一眼能看到是哪个文件哪一行。
    expect(result.problems.map(formatProblem)).toEqual([]);
    // 防止「什么都没检查」也算通过：研究笔记本身就带着引用。
    expect(result.files.some((f) => f.endsWith("R07-extensions.md"))).toBe(true);
    expect(result.citations.length).toBeGreaterThan(10);
    expect(citationFloorProblems(result)).toEqual([]);
  });

  it("查到的比下限少（比如 docs/ 被挪走）时说出期望多少", () => {
    expect(citationFloorProblems({ files: ["a.md"], citations: [] })).toEqual([
      "只查了 1 个 Markdown 文件，期望至少 12 个（../docs 被挪走了？）",
      "只查到 0 条 Pi 引用，期望至少 500 条",
    ]);
  });
});
