import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

import { repoRoot } from "../lib/paths.ts";
import { scoreOf, sliceSource, sumScores, summarize, type Equivalent, type Report, type ReportMutant } from "../mutation/summary.ts";

// npm run mutation 的汇总：分数怎么算、存活者怎么和 equivalents.json 对号（不跑 Stryker）
const source = ["export function f(ms: number) {", "  if (ms <= 0) return 1;", "  return 2;", "}", ""].join("\n");

function mutant(id: string, line: number, from: number, to: number, mutatorName: string, replacement: string, status: string): ReportMutant {
  return { id, mutatorName, replacement, status, location: { start: { line, column: from }, end: { line, column: to } } };
}

const report = (mutants: ReportMutant[], text = source): Report => ({ files: { "step/src/f.ts": { source: text, mutants } } });
const fileKey = (name: string) => name.replace(/^step\//, "");
const equivalent = (line: number, original = "ms <= 0", replacement = "ms < 0"): Equivalent => ({
  file: "src/f.ts",
  line,
  mutator: "EqualityOperator",
  original,
  replacement,
  why: "测试用",
});

describe("mutation summary", () => {
  it("取出被改的原文：1 起的行与列", () => {
    expect(sliceSource(source, { line: 2, column: 7 }, { line: 2, column: 14 })).toBe("ms <= 0");
  });

  it("杀死与超时算测出来；存活与没覆盖算没测出来；错误与跳过不进分母", () => {
    const { files } = summarize(
      report([
        mutant("1", 2, 7, 14, "EqualityOperator", "ms < 0", "Killed"),
        mutant("2", 2, 7, 14, "EqualityOperator", "ms > 0", "Timeout"),
        mutant("3", 3, 10, 11, "NumberLiteral", "3", "Survived"),
        mutant("4", 3, 10, 11, "NumberLiteral", "0", "NoCoverage"),
        mutant("5", 3, 10, 11, "NumberLiteral", "x", "CompileError"),
        mutant("6", 3, 10, 11, "NumberLiteral", "y", "Ignored"),
      ]),
      [],
      fileKey,
    );
    expect(files).toEqual([{ file: "src/f.ts", killed: 2, survived: 2, equivalent: 0, errors: 1, ignored: 1 }]);
    expect(scoreOf(files[0]!, false)).toBe(50);
  });

  it("对上登记的超时变异体算等价、不算测出来，也不让登记过时；对不上的超时照旧算测出来", () => {
    const { files, stale, unlisted, timedOut } = summarize(
      report([
        mutant("1", 2, 7, 14, "EqualityOperator", "ms < 0", "Timeout"),
        mutant("2", 2, 7, 14, "EqualityOperator", "ms > 0", "Timeout"),
        mutant("3", 3, 10, 11, "NumberLiteral", "3", "Killed"),
      ]),
      [equivalent(2)],
      fileKey,
    );
    expect(files).toEqual([{ file: "src/f.ts", killed: 2, survived: 1, equivalent: 1, errors: 0, ignored: 0 }]);
    expect([stale, unlisted, timedOut]).toEqual([[], [], 1]);
    expect(scoreOf(files[0]!, true)).toBe(100);
  });

  it("同一条登记既能抵存活者也能抵超时者：抵存活者", () => {
    const { files, unlisted, timedOut } = summarize(
      report([mutant("1", 2, 7, 14, "EqualityOperator", "ms < 0", "Timeout"), mutant("2", 2, 7, 14, "EqualityOperator", "ms < 0", "Survived")]),
      [equivalent(2)],
      fileKey,
    );
    expect([unlisted, timedOut]).toEqual([[], 0]);
    expect(files[0]).toMatchObject({ killed: 1, survived: 1, equivalent: 1 });
  });

  it("登记按原文对号：行号变了照样对上；原文变了就是新的存活者，旧登记过时", () => {
    const survivor = mutant("1", 2, 7, 14, "EqualityOperator", "ms < 0", "Survived");
    const moved = summarize(report([survivor]), [equivalent(40)], fileKey);
    expect(moved.unlisted).toEqual([]);
    expect(moved.stale).toEqual([]);
    expect(moved.files[0]!.equivalent).toBe(1);
    expect(scoreOf(moved.files[0]!, true)).toBe(100);

    const changed = summarize(report([survivor]), [equivalent(2, "ms <= 1")], fileKey);
    expect(changed.unlisted).toMatchObject([{ file: "src/f.ts", line: 2, original: "ms <= 0", replacement: "ms < 0" }]);
    expect(changed.stale).toHaveLength(1);
  });

  it("一条登记只抵一个存活者：同样的两处变异要登记两次", () => {
    const twice = source.replace("  return 2;", "  if (ms <= 0) return 1;");
    const survivors = [
      mutant("1", 2, 7, 14, "EqualityOperator", "ms < 0", "Survived"),
      mutant("2", 3, 7, 14, "EqualityOperator", "ms < 0", "Survived"),
    ];
    const result = summarize(report(survivors, twice), [equivalent(2)], fileKey);
    expect(result.unlisted).toMatchObject([{ line: 3 }]);
    expect(result.files[0]!.equivalent).toBe(1);
    // 登记的是第 3 行那一处：先出现的第 2 行不能把它抢走
    const later = summarize(report(survivors, twice), [equivalent(3)], fileKey);
    expect(later.unlisted).toMatchObject([{ line: 2 }]);
  });

  it("合计与空文件", () => {
    const a = { file: "a", killed: 9, survived: 1, equivalent: 0, errors: 0, ignored: 0 };
    const b = { file: "b", killed: 0, survived: 0, equivalent: 0, errors: 0, ignored: 0 };
    expect(scoreOf(sumScores("all", [a, b]), false)).toBe(90);
    expect(scoreOf(b, true)).toBe(100);
  });

  it("equivalents.json 的每一条都写了文件、行、原文、替换与理由", () => {
    const list = JSON.parse(fs.readFileSync(path.join(repoRoot, "scripts", "mutation", "equivalents.json"), "utf8")) as Equivalent[];
    for (const e of list) {
      expect(e.file).toMatch(/^src\/.+\.ts$/);
      expect(fs.existsSync(path.join(repoRoot, "labs", "mini-agent-harness", "step09-retry-timeout", e.file))).toBe(true);
      expect(Number.isInteger(e.line) && e.line > 0).toBe(true);
      expect(e.mutator && e.original && e.why).toBeTruthy();
      expect(typeof e.replacement).toBe("string");
    }
  });
});
