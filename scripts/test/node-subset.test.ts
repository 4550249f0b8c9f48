import { globSync } from "tinyglobby";
import { describe, expect, it } from "vitest";
import rootConfig from "../../vitest.config.ts";
import { parseSubset, readSubset } from "../lib/node-subset.ts";
import { repoRoot } from "../lib/paths.ts";

// vitest 自己找测试文件用的就是 tinyglobby，选项也照它（dot、不展开目录、排除 node_modules）
const glob = (patterns: string[]) =>
  globSync(patterns, { cwd: repoRoot, dot: true, expandDirectories: false, ignore: rootConfig.test?.exclude ?? [] }).sort();

describe("CI 在 Node 22、24 上跑的子集（.ci/node-subset.txt）", () => {
  const groups = readSubset(repoRoot);
  const testFiles = new Set(glob(rootConfig.test?.include ?? []));

  it("每个模式至少对上一个根目录 npm test 会跑的测试文件", () => {
    const patterns = groups.flatMap((g) => g.patterns);
    expect(patterns.length).toBeGreaterThan(0);
    const empty = patterns.filter((p) => !glob([p]).some((file) => testFiles.has(file)));
    expect(empty, "这些模式一个测试文件也对不上（文件改名了？）").toEqual([]);
  });

  it("每一组都有说明：碰的是哪类随 Node 版本变的 API", () => {
    expect(groups.map((g) => g.label)).toEqual(["golden", "fetch / undici", "readline 与标准输入", "流", "信号与取消", "加载器"]);
  });

  it("读名单：注释写组名，空行分组，开头的说明段不算组", () => {
    const text = "# 开头的说明\n# 第二行\n\n# 甲：为什么\na/*.test.ts\nb.test.ts\n\n# 乙\nc.test.ts\n\nd.test.ts\n";
    expect(parseSubset(text)).toEqual([
      { label: "甲", patterns: ["a/*.test.ts", "b.test.ts"] },
      { label: "乙", patterns: ["c.test.ts"] },
      { label: "（没有说明）", patterns: ["d.test.ts"] },
    ]);
  });
});
