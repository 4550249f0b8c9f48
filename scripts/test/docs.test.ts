import { describe, expect, it } from "vitest";
import { checkDocsWithStats, docsFloorProblems } from "../lib/docs-checker.ts";
import { repoRoot } from "../lib/paths.ts";

// 书里的每一处代码引用、行号引用、golden 输出块都必须与仓库里的代码一致
describe("docs/ 与代码一致", () => {
  it("checkDocs(仓库根) 没有任何问题", () => {
    const { problems, stats } = checkDocsWithStats(repoRoot);
    expect(problems.map((p) => `${p.file}:${p.line}: ${p.message}`)).toEqual([]);
    // 「没有问题」只有在真查了东西时才算数
    expect(docsFloorProblems(stats)).toEqual([]);
  });
});
