import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { EXERCISES } from "../lib/exercises/registry.ts";
import { FLOORS, floorProblems } from "../lib/floors.ts";
import { repoRoot } from "../lib/paths.ts";
import { listSteps } from "../lib/steps.ts";

// 会数数的检查器：少于下限就失败，并说期望多少（各检查器自己的测试里也各查一遍）
describe("下限（scripts/lib/floors.ts）", () => {
  it("floorProblems：低于下限的每一项一句话，说出查到几个、期望至少几个", () => {
    expect(floorProblems({ a: 3, b: 0 }, { a: 3, b: 2 }, { a: "章", b: "处引用" })).toEqual([
      "只查到 0 处引用，期望至少 2：检查器可能什么也没查到（目录挪走了、没检出？）",
    ]);
    expect(floorProblems({}, { a: 1 }, {})).toHaveLength(1);
  });

  it("今天的仓库达到每一个下限：步骤、练习与参考答案", () => {
    expect(listSteps(repoRoot).length).toBeGreaterThanOrEqual(FLOORS.goldenSteps);
    const withGolden = listSteps(repoRoot).filter((s) => fs.existsSync(path.join(repoRoot, "labs", "mini-agent-harness", s, "expected-output.txt")));
    expect(withGolden.length, "有 expected-output.txt 的步骤").toBeGreaterThanOrEqual(FLOORS.goldenSteps);
    expect(EXERCISES.length, `只有 ${EXERCISES.length} 个练习，期望至少 ${FLOORS.exercises} 个`).toBeGreaterThanOrEqual(FLOORS.exercises);
    const missing = EXERCISES.filter((e) => !fs.existsSync(path.join(repoRoot, "solutions", e.step, ...e.file.split("/"))));
    expect(missing.map((e) => `${e.step}/${e.file}`), "没有参考答案的练习").toEqual([]);
  });
});
