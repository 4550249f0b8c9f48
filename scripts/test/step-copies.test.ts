import { afterEach, describe, expect, it } from "vitest";
import { FLOORS } from "../lib/floors.ts";
import { checkStepCopies, checkStepCopiesWithStats, isNamed, readChangeList } from "../lib/step-copies.ts";
import { repoRoot } from "../lib/paths.ts";
import { makeFixtureRoot, removeFixtureRoot, writeStep } from "./helpers/fixture.ts";

describe("步骤副本：同一个文件在相邻两步里要么相同，要么在后一步 README 的「多了什么」里", () => {
  it("仓库里的九个步骤", () => {
    const { problems, stats } = checkStepCopiesWithStats(repoRoot);
    expect(problems.map((p) => p.message).join("\n"), "只修了部分副本？").toBe("");
    // 「没有问题」只有在真比较了东西时才算数（步骤目录没检出时这里是 0）
    expect(stats.pairs, `只比较了 ${stats.pairs} 对相邻步骤，期望至少 ${FLOORS.stepPairs} 对`).toBeGreaterThanOrEqual(FLOORS.stepPairs);
    expect(stats.files, `只比较了 ${stats.files} 个文件，期望至少 ${FLOORS.stepCopyFiles} 个`).toBeGreaterThanOrEqual(FLOORS.stepCopyFiles);
  });

  let root: string | undefined;
  afterEach(() => {
    if (root) removeFixtureRoot(root);
    root = undefined;
  });

  const readme = (list: string) => `# step02\n\n**比 step01 多了什么**（完整差异：npm run diff -- 02）\n\n${list}\n\n**命令**：\`npm start\`、\`src/ignored.ts\`\n`;

  it("只改了一份副本：指出文件与两个步骤", () => {
    root = makeFixtureRoot("copies");
    writeStep(root, "step01-cli", { "src/a.ts": "1\n", "src/b.ts": "1\n", "src/ignored.ts": "1\n", "README.md": "# 1\n" });
    writeStep(root, "step02-messages", { "src/a.ts": "1\r\n", "src/b.ts": "2\n", "src/ignored.ts": "2\n", "README.md": readme("- 新东西：`src/new.ts`") });
    const problems = checkStepCopies(root);
    expect(problems.map((p) => [p.file, p.from, p.to])).toEqual([
      ["src/b.ts", "step01-cli", "step02-messages"],
      ["src/ignored.ts", "step01-cli", "step02-messages"],
    ]);
    expect(problems[0]?.message).toContain("src/b.ts：step01-cli 与 step02-messages 的副本不同，但 step02-messages/README.md 的「比 step01 多了什么」没有提到它");
  });

  it("在那一节里提到文件或它的目录，就算这一章的改动", () => {
    root = makeFixtureRoot("copies-ok");
    writeStep(root, "step01-cli", { "src/b.ts": "1\n", "src/tools/x.ts": "1\n" });
    writeStep(root, "step02-messages", { "src/b.ts": "2\n", "src/tools/x.ts": "2\n", "README.md": readme("- `src/b.ts:3` 与 `src/tools/` 都改了") });
    expect(checkStepCopies(root)).toEqual([]);
  });

  it("README 没有那一节：一条问题列出所有不同的文件", () => {
    root = makeFixtureRoot("copies-noreadme");
    writeStep(root, "step01-cli", { "src/b.ts": "1\n" });
    writeStep(root, "step02-messages", { "src/b.ts": "2\n", "README.md": "# step02\n" });
    expect(checkStepCopies(root).map((p) => p.message)).toEqual([
      "step02-messages/README.md 没有「**比 step01 多了什么**」一节，无法核对与 step01-cli 不同的 1 个文件：src/b.ts",
    ]);
  });

  it("readChangeList 只读那一节里像路径的行内代码；isNamed 认目录前缀", () => {
    expect(readChangeList(readme("- `StreamFn`、`src/x.ts:12-14`、`extensions/logger.ts`、`a b`"))).toEqual({
      previous: "step01",
      paths: ["src/x.ts", "extensions/logger.ts"],
    });
    expect(isNamed("src/providers/index.ts", ["src/providers/"])).toBe(true);
    expect(isNamed("src/providers.ts", ["src/providers/"])).toBe(false);
  });
});
