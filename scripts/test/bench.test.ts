import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BenchSkip } from "../bench/lib.ts";
import { alternate, baselineDir, prepareBaseline, sideBySideFigures, vitestBinFor } from "../bench/root-tests.ts";
import { run as runSse } from "../bench/sse.ts";
import { compareSteps, run as runStepRatio, stepPairs } from "../bench/step-ratio.ts";
import { childrenCpuSeconds, run as runStepTests } from "../bench/step-tests.ts";
import type { BenchResults } from "../lib/bench-runner.ts";
import { formatValue } from "../lib/bench-runner.ts";
import { repoRoot } from "../lib/paths.ts";
import { runNode } from "../lib/run-node.ts";
import { resolveTsxLoader } from "../lib/tsx-cli.ts";
import { makeFixtureRoot, removeFixtureRoot, stepPath, writeFiles, writeStep } from "./helpers/fixture.ts";

// 只检查 bench 能跑通：表格打印出来、JSON 里有这些数字、每个数字都是有限数。不断言快慢。
describe("npm run bench -- --quick", () => {
  let tmp: string;
  let output: string;
  let exitCode: number | null;
  let results: BenchResults;

  beforeAll(async () => {
    tmp = makeFixtureRoot("bench");
    const json = path.join(tmp, "latest.json");
    const run = await runNode(["--import", resolveTsxLoader(), path.join("scripts", "bench.ts"), "--quick", "--out", json], repoRoot); // 不经过 tsx 命令行：少起一个进程
    output = run.output;
    exitCode = run.exitCode;
    results = JSON.parse(fs.readFileSync(json, "utf8")) as BenchResults;
  }, 120_000); // 只防真卡住：机器很忙时快速模式也可能要几十秒
  afterAll(() => removeFixtureRoot(tmp));

  it("退出码为 0，打印一张表并给出 JSON 的路径", () => {
    expect(exitCode, output).toBe(0);
    expect(output).toMatch(/指标\s+数值\s+目标\s+结论/);
    for (const title of ["【会话】", "【取消延迟】", "【取消监听器】", "【SSE 吞吐】"]) expect(output).toContain(title);
    expect(output).toContain("结果已写入");
  });

  it("JSON 里有每一组的数字，每个都是有限数", () => {
    expect(results.quick).toBe(true);
    expect(results.errors).toEqual([]);
    for (const group of ["sessions", "abort-latency", "abort-listeners"]) {
      expect(results.figures.filter((f) => f.group === group).length, group).toBeGreaterThan(0);
    }
    // SSE 要么有数字，要么说明 step08 还没提供
    const sse = results.figures.some((f) => f.group === "sse") || results.skipped.some((s) => s.group === "sse");
    expect(sse).toBe(true);
    // 每个步骤的 npm test 要跑好几分钟：快速模式跳过，并说明原因
    expect(results.skipped.find((s) => s.group === "step-tests")?.reason).toMatch(/快速模式不跑/);
    expect(results.skipped.find((s) => s.group === "root-tests")?.reason).toMatch(/快速模式不跑/);
    expect(results.skipped.find((s) => s.group === "step-ratio")?.reason).toMatch(/快速模式不跑/);
    for (const f of results.figures) {
      expect(Number.isFinite(f.value), `${f.name} = ${f.value}`).toBe(true);
      expect(typeof f.unit).toBe("string");
      if (f.ok !== undefined) expect(typeof f.target).toBe("string");
    }
  });

  it("并排的数字有比值，监听器一个不剩", () => {
    const ratio = results.figures.find((f) => f.group === "abort-latency" && f.unit === "×");
    expect(ratio?.value).toBeGreaterThan(0);
    expect(results.figures.find((f) => f.name === "全部结束后剩下的 abort 监听器")?.value).toBe(0);
  });
});

describe("SSE 一项找 step08 的 benchSse", () => {
  let root: string;
  beforeAll(() => {
    root = makeFixtureRoot("bench-sse");
  });
  afterAll(() => removeFixtureRoot(root));

  it("没有 step08 时跳过，并说明原因", async () => {
    await expect(runSse({ quick: true, root })).rejects.toThrow(BenchSkip);
    await expect(runSse({ quick: true, root })).rejects.toThrow("（step08 尚未提供）");
  });

  it("step08 的 bench/ 里导出 benchSse 时列出三个数字", async () => {
    writeStep(root, "step08-real-model", {
      "bench/run.ts": `console.log("这个文件不导出 benchSse，不应被导入");\nprocess.exit(3);\n`,
      "bench/sse.ts": `export async function benchSse({ quick }: { quick: boolean }) {\n  return { oursMBps: quick ? 100 : 1, npmMBps: 50, ratio: 2 };\n}\n`,
    });
    const figures = await runSse({ quick: true, root });
    expect(figures.map((f) => [f.value, f.unit])).toEqual([
      [100, "MB/s"],
      [50, "MB/s"],
      [2, "×"],
    ]);
    // 快速模式不评判目标；完整模式里只有手写解析器的吞吐有目标（≥ 50 MB/s），比值只报告
    expect(figures.map((f) => f.ok)).toEqual([undefined, undefined, undefined]);
    const full = await runSse({ quick: false, root });
    expect(full.map((f) => [f.value, f.target, f.ok])).toEqual([
      [1, "≥ 50 MB/s", false],
      [50, undefined, undefined],
      [2, undefined, undefined],
    ]);
  });

  it("bench/sse.ts 存在但没有导出 benchSse 时同样跳过", async () => {
    // 另起一个根目录：同一路径的模块已被上一个测试导入并缓存
    const other = makeFixtureRoot("bench-sse-none");
    try {
      writeFiles(stepPath(other, "step08-real-model"), { "bench/sse.ts": "export const other = 1;\n" });
      await expect(runSse({ quick: true, root: other })).rejects.toThrow("（step08 尚未提供）");
    } finally {
      removeFixtureRoot(other);
    }
  });
});

describe("数值格式", () => {
  it("按大小取小数位，比值用 ×", () => {
    expect(formatValue(1234.5, "ms")).toBe("1,235 ms");
    expect(formatValue(12.34, "ms")).toBe("12.3 ms");
    expect(formatValue(0.1234, "ms")).toBe("0.123 ms");
    expect(formatValue(0, "个")).toBe("0 个");
    expect(formatValue(321.4, "×")).toBe("321 ×");
  });
});

describe("每个步骤的 npm test 一项", () => {
  it("快速模式跳过并说明原因", async () => {
    await expect(runStepTests({ quick: true })).rejects.toThrow(BenchSkip);
  });

  it("Linux 上读得到子进程用掉的 CPU 时间：跑过一个忙了一阵的子进程之后变大", async () => {
    const before = childrenCpuSeconds();
    if (process.platform !== "linux") {
      expect(before).toBeUndefined();
      return;
    }
    expect(before).toBeGreaterThanOrEqual(0);
    // 子进程按它自己的 CPU 时钟忙满 0.2 秒（不是固定的循环次数：那在快机器上太短，在慢机器上白白烧几秒）。
    // 用户态加内核态一起算，且每忙一小段才问一次：每次问都是一次系统调用，只数用户态时，内核态会另外烧掉好几倍
    await runNode(["-e", "const t = process.cpuUsage(); for (;;) { for (let i = 0; i < 1e5; i++); const u = process.cpuUsage(t); if (u.user + u.system >= 200_000) break; }"], repoRoot);
    // 内核按 10 毫秒一格记账：0.2 秒至少记下 0.1 秒
    expect(childrenCpuSeconds()! - before!).toBeGreaterThanOrEqual(0.1);
  });
});

describe("根目录的 npm test 与基线并排", () => {
  it("交替跑：基线、当前、基线、当前……", async () => {
    const order: string[] = [];
    const runs = await alternate("B", "N", 3, async (dir) => {
      order.push(dir);
      return { seconds: dir === "B" ? 10 : 5, cpu: dir === "B" ? 20 : 12 };
    });
    expect(order).toEqual(["B", "N", "B", "N", "B", "N"]);
    expect(runs.map((r) => r.side)).toEqual(["baseline", "head", "baseline", "head", "baseline", "head"]);
  });

  it("两边各取中位数，比值是当前 ÷ 基线，墙钟与 CPU 之比都对照 ≤ 0.5", () => {
    const runs = [
      { side: "baseline", seconds: 10, cpu: 20 },
      { side: "head", seconds: 5, cpu: 9 },
      { side: "baseline", seconds: 30, cpu: 21 },
      { side: "head", seconds: 7, cpu: 10 },
      { side: "baseline", seconds: 12, cpu: 19 },
      { side: "head", seconds: 6, cpu: 30 },
    ] as const;
    const figures = sideBySideFigures(runs);
    const wall = figures.find((f) => f.name.startsWith("墙钟之比"));
    expect(figures.filter((f) => f.unit === "s").map((f) => f.value)).toEqual([12, 6, 20, 10]);
    expect(wall).toMatchObject({ name: "墙钟之比：当前 ÷ 5be4bea", value: 0.5, unit: "×", target: "≤ 0.5 ×", ok: true });
    expect(figures.find((f) => f.name.startsWith("CPU 之比"))).toMatchObject({ value: 0.5, unit: "×", target: "≤ 0.5 ×", ok: true });
    // 没有 CPU 读数（不是 Linux）时只有墙钟三项；0.51 就不算达到
    expect(sideBySideFigures([{ side: "baseline", seconds: 10 }, { side: "head", seconds: 5.1 }]).map((f) => [f.value, f.ok])).toEqual([
      [10, undefined],
      [5.1, undefined],
      [0.51, false],
    ]);
  });

  it("仓库里没有基线那个 commit 时跳过，并说明原因", () => {
    const root = makeFixtureRoot("bench-baseline");
    try {
      spawnSync("git", ["init", "-q"], { cwd: root });
      expect(() => prepareBaseline(root, path.join(root, "baseline"), "5be4bea")).toThrow(BenchSkip);
      expect(() => prepareBaseline(root, path.join(root, "baseline"), "5be4bea")).toThrow(/没有基线 5be4bea/);
      expect(fs.existsSync(path.join(root, "baseline"))).toBe(false);
    } finally {
      removeFixtureRoot(root);
    }
  });

  it("基线的目录按仓库路径区分，放在系统临时目录里", () => {
    expect(baselineDir("/a/repo")).not.toBe(baselineDir("/b/repo"));
    expect(baselineDir("/a/repo").startsWith(os.tmpdir())).toBe(true);
    expect(path.basename(baselineDir("/a/repo"))).toMatch(/^baseline-5be4bea-[0-9a-f]{8}$/);
  });

  it("vitest 从步骤目录往上找：步骤是工作区，装在仓库根", () => {
    expect(vitestBinFor(path.join(repoRoot, "labs", "mini-agent-harness", "step09-retry-timeout"))).toBe(path.join(repoRoot, "node_modules", "vitest", "vitest.mjs"));
  });
});

describe("步骤 06–09 各自的 npm test 与基线里同一步并排", () => {
  const steps = (root: string, names: string[]) => {
    for (const name of names) writeStep(root, name, {});
  };

  it("两棵树按编号对上步骤目录（名字可以不同）；哪一边缺了那一步就说出来", () => {
    const head = makeFixtureRoot("bench-steps-head");
    const base = makeFixtureRoot("bench-steps-base");
    try {
      steps(head, ["step05-tools", "step06-sessions", "step07-abort", "step08-real-model", "step09-retry-timeout"]);
      steps(base, ["step06-sessions", "step07-abort-extensions", "step09-retry-timeout"]);
      const { pairs, missing } = stepPairs(head, base);
      expect(pairs.map((p) => [p.step, path.basename(p.baseline), path.relative(head, p.head)])).toEqual([
        ["step06-sessions", "step06-sessions", path.join("labs", "mini-agent-harness", "step06-sessions")],
        ["step07-abort", "step07-abort-extensions", path.join("labs", "mini-agent-harness", "step07-abort")],
        ["step09-retry-timeout", "step09-retry-timeout", path.join("labs", "mini-agent-harness", "step09-retry-timeout")],
      ]);
      expect(pairs.every((p) => p.baseline.startsWith(base))).toBe(true);
      expect(missing).toEqual(["step08（5be4bea没有这一步）"]);
    } finally {
      removeFixtureRoot(head);
      removeFixtureRoot(base);
    }
  });

  it("基线里没有的 step10 与基线的 step09 并排（issue 50 的目标）；基线里也有 step10 时照常同号相比", () => {
    const head = makeFixtureRoot("bench-steps-head10");
    const base = makeFixtureRoot("bench-steps-base10");
    try {
      steps(head, ["step09-retry-timeout", "step10-coding-tools"]);
      steps(base, ["step09-retry-timeout"]);
      const last = stepPairs(head, base).pairs.at(-1)!;
      expect([last.step, path.basename(last.baseline), path.basename(last.head)]).toEqual(["step10-coding-tools（对 5be4bea 的 step09-retry-timeout）", "step09-retry-timeout", "step10-coding-tools"]);
      steps(base, ["step10-coding-tools"]);
      expect(stepPairs(head, base).pairs.map((p) => p.step)).toEqual(["step09-retry-timeout"]);
    } finally {
      removeFixtureRoot(head);
      removeFixtureRoot(base);
    }
  });

  it("一步一步地交替跑（基线、当前……），每一步给出自己的中位数与比值；墙钟对照 ≤ 0.5，CPU 只报告", async () => {
    const pairs = [
      { step: "step08-real-model", baseline: "B8", head: "N8" },
      { step: "step09-retry-timeout", baseline: "B9", head: "N9" },
    ];
    const order: string[] = [];
    // 假的测试运行：step08 当前是基线的 0.4 倍，step09 是 0.6 倍；CPU 都是一半
    const seconds: Record<string, number[]> = { B8: [20, 30, 10], N8: [8, 8, 9], B9: [10, 10, 10], N9: [6, 6, 6] };
    const figures = await compareSteps(pairs, 3, async (dir) => {
      order.push(dir);
      const s = seconds[dir]!.shift()!;
      return { seconds: s, cpu: s / 2 };
    });
    expect(order).toEqual(["B8", "N8", "B8", "N8", "B8", "N8", "B9", "N9", "B9", "N9", "B9", "N9"]);
    const ratios = figures.filter((f) => f.unit === "×").map((f) => [f.name, f.value, f.target, f.ok]);
    expect(ratios).toEqual([
      ["step08-real-model：墙钟之比：当前 ÷ 5be4bea", 0.4, "≤ 0.5 ×", true],
      ["step08-real-model：CPU 之比：当前 ÷ 5be4bea", 0.4, undefined, undefined],
      ["step09-retry-timeout：墙钟之比：当前 ÷ 5be4bea", 0.6, "≤ 0.5 ×", false],
      ["step09-retry-timeout：CPU 之比：当前 ÷ 5be4bea", 0.6, undefined, undefined],
    ]);
    expect(figures.find((f) => f.name === "step08-real-model：5be4bea（基线）：墙钟时间，3 次的中位数")?.value).toBe(20);
  });

  it("快速模式跳过并说明原因", async () => {
    await expect(runStepRatio({ quick: true })).rejects.toThrow(/快速模式不跑/);
  });
});
