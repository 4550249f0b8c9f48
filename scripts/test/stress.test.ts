import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isAlive } from "../lib/cpu-load.ts";
import { runStress, type StressReport } from "../lib/stress.ts";
import { Collector, makeFixtureRoot, plainNodeCli, removeFixtureRoot, stepPath, writeStep } from "./helpers/fixture.ts";

const GOLDEN = "你> 你好\n助手> 你好！\n再见。\n";
const printGolden = `process.stdout.write(${JSON.stringify(GOLDEN)});\n`;

describe("npm run stress（假步骤，2 次，1 个忙循环）", () => {
  let root: string;
  let out: Collector;
  let code: number;
  let report: StressReport;
  let loadPids: number[] = [];

  beforeAll(async () => {
    root = makeFixtureRoot("stress");
    writeStep(root, "step01-ok", { "src/demo.ts": printGolden, "expected-output.txt": GOLDEN });
    // 不稳定的 demo：多打一行随机数，永远对不上 golden
    writeStep(root, "step02-random", {
      "src/demo.ts": `${printGolden}console.log("随机：" + Math.random());\n`,
      "expected-output.txt": GOLDEN,
    });
    // 时好时坏的 demo：第一次与 golden 一致，第二次起多一行（靠目录里的计数文件区分）
    writeStep(root, "step03-second-run", {
      "src/demo.ts": [
        `import fs from "node:fs";`,
        `const n = fs.existsSync("count.txt") ? Number(fs.readFileSync("count.txt", "utf8")) + 1 : 1;`,
        `fs.writeFileSync("count.txt", String(n));`,
        printGolden,
        `if (n > 1) console.log("第 " + n + " 次多出来的一行");`,
        ``,
      ].join("\n"),
      "expected-output.txt": GOLDEN,
    });
    out = new Collector();
    ({ code, report } = await runStress({ root, runs: 2, load: 1, out, tsxCli: plainNodeCli, onLoadStarted: (pids) => (loadPids = pids) }));
  });
  afterAll(() => removeFixtureRoot(root));

  const lineFor = (step: string) => out.text.split("\n").find((l) => l.startsWith(step)) ?? "";

  it("每个步骤一行「名字  通过/次数」，名字对齐", () => {
    expect(lineFor("step01-ok")).toBe("step01-ok          2/2");
    expect(lineFor("step03-second-run")).toBe("step03-second-run  1/2");
  });

  it("打印随机行的 demo 不是 N/N，并给出第一次失败的 diff", () => {
    expect(lineFor("step02-random")).toBe("step02-random      0/2");
    expect(out.text).toContain("第 1 次（第一次失败）：输出与 expected-output.txt 不一致");
    expect(out.text).toMatch(/\+随机：0\.\d+/);
  });

  it("第二次才失败的 demo 报告 1/2，指出失败的是第 2 次", () => {
    const section = out.text.slice(out.text.indexOf("step03-second-run"));
    expect(section).toContain("失败的运行：第 2 次");
    expect(section).toContain("+第 2 次多出来的一行");
    expect(report.steps.find((s) => s.step === "step03-second-run")?.failedRuns).toEqual([2]);
    expect(fs.readFileSync(path.join(stepPath(root, "step03-second-run"), "count.txt"), "utf8")).toBe("2");
  });

  it("有步骤不是 N/N 时退出码为 1，并打印汇总", () => {
    expect(code).toBe(1);
    expect(out.text).toContain("有步骤没有做到 N/N：1/3 个步骤 2/2");
  });

  it("忙循环真的启动了，结束后全部被杀掉", () => {
    expect(report.load).toBe(1);
    expect(loadPids).toHaveLength(1);
    expect(loadPids.filter(isAlive)).toEqual([]);
  });
});

describe("全部 N/N", () => {
  let root: string;
  beforeAll(() => {
    root = makeFixtureRoot("stress-ok");
    writeStep(root, "step01-ok", { "src/demo.ts": printGolden, "expected-output.txt": GOLDEN.replace(/\n/g, "\r\n") });
  });
  afterAll(() => removeFixtureRoot(root));

  it("退出码为 0（golden 是 CRLF 也一样通过）", async () => {
    const out = new Collector();
    const { code } = await runStress({ root, runs: 2, load: 0, out, tsxCli: plainNodeCli });
    expect(out.text).toContain("step01-ok  2/2");
    expect(out.text).toContain("全部通过：1/1 个步骤 2/2");
    expect(code).toBe(0);
  });

  it("没有步骤时退出码为 1", async () => {
    const out = new Collector();
    const empty = makeFixtureRoot("stress-empty");
    try {
      expect((await runStress({ root: empty, runs: 2, load: 0, out, tsxCli: plainNodeCli })).code).toBe(1);
      expect(out.text).toContain("没有找到任何步骤目录");
    } finally {
      removeFixtureRoot(empty);
    }
  });
});
