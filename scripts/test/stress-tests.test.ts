import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isAlive } from "../lib/cpu-load.ts";
import { failureExcerpt, npmTestCommand, runTestStress, summaryOf } from "../lib/stress-tests.ts";
import { repoRoot } from "../lib/paths.ts";
import { Collector, makeFixtureRoot, removeFixtureRoot } from "./helpers/fixture.ts";

// 假的「npm test」：打印一段像 vitest 的汇总。三份同时起，只有抢到 mkdir 的那一份失败——
// 恰好一份，与谁先谁后无关
const FAKE_TESTS = `
const fs = require("node:fs");
let first = false;
try { fs.mkdirSync("first-copy"); first = true; } catch {}
if (first) {
  console.log(" FAIL  test/a.test.ts > 某个用例");
  console.log(" Test Files  1 failed | 1 passed (2)");
  process.exit(1);
}
console.log(" Test Files  2 passed (2)");
console.log("      Tests  7 passed (7)");
`;

describe("summaryOf", () => {
  it("认得 vitest 默认输出的汇总行，也认得根目录简短输出的「合计」一行", () => {
    expect(summaryOf(" Test Files  2 passed (2)\n      Tests  7 passed (7)\n")).toBe("Test Files 2 passed (2)；Tests 7 passed (7)");
    expect(summaryOf("✓ step01-cli  3 个文件\n\n✓ 合计：138 个文件，1600 通过，0 跳过，用时 55.0s\n")).toBe("✓ 合计：138 个文件，1600 通过，0 跳过，用时 55.0s");
  });
});

describe("npm run stress -- --tests N（假的 npm test）", () => {
  let root: string;
  beforeAll(() => {
    root = makeFixtureRoot("stress-tests");
  });
  afterAll(() => removeFixtureRoot(root));

  it("3 份同时跑、1 份失败：报告 2/3，摘出失败的那一份，退出码 1；忙循环都被杀掉", async () => {
    const out = new Collector();
    let loadPids: number[] = [];
    const { code, report } = await runTestStress({
      root,
      copies: 3,
      load: 1,
      out,
      command: ["-e", FAKE_TESTS],
      onLoadStarted: (pids) => (loadPids = pids),
    });
    expect(code).toBe(1);
    expect(report.runs.map((r) => r.exitCode).sort()).toEqual([0, 0, 1]);
    expect(out.text).toContain("同一时刻起 3 份完整的 npm test");
    expect(out.text).toMatch(/npm test 第 \d 份 {2}失败（退出码 1）/);
    expect(out.text).toContain("  │  FAIL  test/a.test.ts > 某个用例");
    expect(out.text.match(/ {2}通过 {2}/g)).toHaveLength(2);
    expect(out.text).toContain("Test Files 2 passed (2)；Tests 7 passed (7)");
    expect(out.text).toContain("没有做到 N/N：npm test 2/3（3 份同时跑，外加 1 个忙循环）");
    expect(loadPids).toHaveLength(1);
    expect(loadPids.filter(isAlive)).toEqual([]);
  });

  it("全部通过：N/N，退出码 0", async () => {
    const out = new Collector();
    const { code } = await runTestStress({ root, copies: 2, load: 0, out, command: ["-e", "console.log('ok')"] });
    expect(code).toBe(0);
    expect(out.text).toContain("全部通过：npm test 2/2");
  });

  it("份数不是正整数：拒绝", async () => {
    await expect(runTestStress({ root, copies: 0, load: 0, out: new Collector(), command: ["-e", ""] })).rejects.toThrow(RangeError);
  });
});

describe("stress-tests 的小工具", () => {
  it("默认命令：用当前 node 跑仓库里的 vitest run（不经过 shell）", () => {
    const [bin, verb] = npmTestCommand(repoRoot);
    expect(bin).toMatch(/vitest[\\/]vitest\.mjs$/);
    expect(verb).toBe("run");
  });

  it("summaryOf 只取 vitest 的汇总行；failureExcerpt 在找不到线索时给最后几行", () => {
    expect(summaryOf(" Test Files  1 passed (1)\n      Tests  3 passed (3)\n Duration 1s\n")).toBe("Test Files 1 passed (1)；Tests 3 passed (3)");
    expect(failureExcerpt("a\nb\n")).toBe("  │ a\n  │ b\n  │ ");
  });
});
