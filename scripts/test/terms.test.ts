import { describe, expect, it } from "vitest";
import { repoRoot } from "../lib/paths.ts";
import { checkTerms } from "../lib/terms.ts";
import { makeFixtureRoot, removeFixtureRoot, writeFiles } from "./helpers/fixture.ts";

describe("一个意思一个词", () => {
  it("仓库里没有不再使用的说法（书、代码、输出、README、研究笔记）", () => {
    const found = checkTerms(repoRoot).map((p) => `${p.file}:${p.line}：「${p.found}」请改成「${p.use}」`);
    expect(found.join("\n")).toBe("");
  });

  it("找得到并指出文件、行号与该用的词", () => {
    const root = makeFixtureRoot("terms");
    try {
      writeFiles(root, { "docs/x.md": "第一行\nturn 层会重试；失败的 assistant 消息不发。\n" });
      expect(checkTerms(root)).toEqual([
        { file: "docs/x.md", line: 2, found: "turn 层", use: "回合层" },
        { file: "docs/x.md", line: 2, found: "assistant 消息", use: "助手消息" },
      ]);
    } finally {
      removeFixtureRoot(root);
    }
  });
});
