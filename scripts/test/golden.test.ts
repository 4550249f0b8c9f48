import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { goldenDiff, judge } from "../lib/golden-check.ts";
import { runAllDemos, runOneDemo, updateGolden } from "../lib/golden-runner.ts";
import { unifiedDiff } from "../lib/unified-diff.ts";
import { crlfToLf } from "../lib/text.ts";
import { Collector, makeFixtureRoot, plainNodeCli, removeFixtureRoot, stepPath, writeStep } from "./helpers/fixture.ts";

const GOLDEN = "你> 你好\n助手> 你好！\n再见。\n";
const printGolden = `process.stdout.write(${JSON.stringify(GOLDEN)});\n`;

describe("golden 比较的纯函数部分", () => {
  it("只统一 CRLF，不动行尾空格", () => {
    expect(crlfToLf("a\r\nb\r\n")).toBe("a\nb\n");
    expect(goldenDiff("a\r\nb\n", "a\nb\n")).toBe("");
    expect(goldenDiff("a \nb\n", "a\nb\n")).not.toBe("");
  });

  it("单独的 CR 不算换行：和步骤自己的 golden 测试一样严，两边的结论不会不同", () => {
    expect(crlfToLf("a\rb\r\n")).toBe("a\rb\n");
    expect(goldenDiff("a\nb\n", "a\rb\n")).not.toBe("");
    // 步骤的 test/golden.test.ts 用的就是这一句（每步一份，不能 import 仓库脚本）
    const stepLf = (text: string): string => text.replace(/\r\n/g, "\n");
    for (const sample of ["a\r\nb\n", "a\rb\n", "a\r\r\nb", "\r", "a\n\r"]) expect(crlfToLf(sample)).toBe(stepLf(sample));
    const dir = makeFixtureRoot("golden-cr");
    try {
      fs.writeFileSync(path.join(dir, "expected-output.txt"), "a\nb\n");
      const result = { stdout: "a\rb\n", stderr: "", exitCode: 0, signal: null, timedOut: false };
      expect(judge("step01-x", dir, result, 1000).ok).toBe(false);
      expect(judge("step01-x", dir, { ...result, stdout: "a\r\nb\r\n" }, 1000).ok).toBe(true);
    } finally {
      removeFixtureRoot(dir);
    }
  });
});

describe("npm run demo（全部步骤）", () => {
  let root: string;
  let out: Collector;
  let code: number;

  beforeAll(async () => {
    root = makeFixtureRoot("golden");
    writeStep(root, "step01-ok", { "src/demo.ts": printGolden, "expected-output.txt": GOLDEN });
    // golden 里改一个字符：！→ ？
    writeStep(root, "step02-changed", { "src/demo.ts": printGolden, "expected-output.txt": GOLDEN.replace("！", "？") });
    writeStep(root, "step03-crlf", { "src/demo.ts": printGolden, "expected-output.txt": GOLDEN.replace(/\n/g, "\r\n") });
    writeStep(root, "step04-crash", {
      "src/demo.ts": `console.log("你> 你好");\nconsole.error("出错了：模型炸了");\nprocess.exit(1);\n`,
      "expected-output.txt": GOLDEN,
    });
    writeStep(root, "step05-stderr", {
      "src/demo.ts": `console.error("提示：这行只在 stderr");\n${printGolden}`,
      "expected-output.txt": GOLDEN,
    });
    writeStep(root, "step06-nogolden", { "src/demo.ts": printGolden });
    out = new Collector();
    code = await runAllDemos({ root, out, color: false, tsxCli: plainNodeCli });
  });
  afterAll(() => removeFixtureRoot(root));

  const lineFor = (step: string) => out.text.split("\n").find((l) => l.includes(step)) ?? "";

  it("一致的步骤打 ✓", () => {
    expect(lineFor("step01-ok")).toBe("✓ step01-ok");
  });

  it("改了一个字符的 golden 打 ✗，diff 里能看到那一行", () => {
    expect(lineFor("step02-changed")).toBe("✗ step02-changed（输出与 expected-output.txt 不一致）");
    expect(out.text).toContain("--- EXPECTED (expected-output.txt)");
    expect(out.text).toContain("+++ ACTUAL (demo stdout)");
    expect(out.text).toContain("-助手> 你好？");
    expect(out.text).toContain("+助手> 你好！");
  });

  it("CRLF 的 golden 照样通过", () => {
    expect(lineFor("step03-crlf")).toBe("✓ step03-crlf");
  });

  it("demo 以非 0 退出码结束算失败，并显示 stderr", () => {
    expect(lineFor("step04-crash")).toBe("✗ step04-crash（demo 异常退出，退出码 1）");
    expect(out.text).toContain("出错了：模型炸了");
  });

  it("stderr 不参与比较", () => {
    expect(lineFor("step05-stderr")).toBe("✓ step05-stderr");
    expect(out.text).not.toContain("提示：这行只在 stderr");
  });

  it("缺少 expected-output.txt 算失败并提示怎么生成", () => {
    expect(lineFor("step06-nogolden")).toContain("缺少 expected-output.txt，先运行 npm run golden:update -- 6");
  });

  it("有失败时退出码为 1，并打印汇总", () => {
    expect(code).toBe(1);
    expect(out.text).toContain("3/6 个步骤与 golden 一致");
  });

  it("按步骤顺序输出", () => {
    const order = ["step01", "step02", "step03", "step04", "step05", "step06"].map((s) => out.text.indexOf(`${s}-`));
    expect([...order].sort((a, b) => a - b)).toEqual(order);
  });
});

describe("单个步骤与 golden:update", () => {
  let root: string;
  beforeAll(() => {
    root = makeFixtureRoot("golden-one");
    writeStep(root, "step01-ok", { "src/demo.ts": printGolden, "expected-output.txt": GOLDEN });
    // demo 用 CRLF 输出，写进 golden 时必须统一成 LF
    writeStep(root, "step02-new", { "src/demo.ts": `process.stdout.write(${JSON.stringify(GOLDEN.replace(/\n/g, "\r\n"))});\n` });
    writeStep(root, "step03-crash", { "src/demo.ts": `console.log("半截");\nprocess.exit(3);\n`, "expected-output.txt": "旧的\n" });
    writeStep(root, "step04-hang", { "src/demo.ts": `console.log("开始");\nsetInterval(() => {}, 1000);\n` , "expected-output.txt": "开始\n" });
  });
  afterAll(() => removeFixtureRoot(root));

  it("步骤比下限少（npm run demo 要 9 个）：不跑任何 demo，直接失败并说期望几个", async () => {
    const out = new Collector();
    expect(await runAllDemos({ root, out, minSteps: 9 })).toBe(1);
    expect(out.text).toContain("只找到 4 个步骤目录，期望至少 9 个");
  });

  it("demo N：实时输出后给出 ✓，退出码 0", async () => {
    const out = new Collector();
    expect(await runOneDemo("1", { root, out })).toBe(0);
    expect(out.text).toContain("助手> 你好！");
    expect(out.text).toContain("✓ step01-ok");
  });

  it("卡住的 demo 超时后被杀掉，报告超时", async () => {
    const out = new Collector();
    const started = Date.now();
    expect(await runOneDemo("04", { root, out, timeoutMs: 300, tsxCli: plainNodeCli })).toBe(1);
    expect(out.text).toMatch(/✗ step04-hang（超时：运行超过 0\.3 秒/);
    // 宽松上限：这个 demo 永远不会自己结束，能在测试时限之内回来就证明它被杀掉了（机器再忙也够）
    expect(Date.now() - started).toBeLessThan(60_000);
  });

  it("update 写入新的 golden（LF）并打印接受的 diff；再跑一次没有变化", async () => {
    const out = new Collector();
    expect(await updateGolden("step02-new", { root, out, tsxCli: plainNodeCli })).toBe(0);
    const file = path.join(stepPath(root, "step02-new"), "expected-output.txt");
    expect(fs.readFileSync(file, "utf8")).toBe(GOLDEN);
    expect(out.text).toContain("+助手> 你好！");

    const again = new Collector();
    expect(await updateGolden("2", { root, out: again, tsxCli: plainNodeCli })).toBe(0);
    expect(again.text).toContain("没有变化");
  });

  it("demo 失败时 update 拒绝写入", async () => {
    const out = new Collector();
    expect(await updateGolden("3", { root, out, tsxCli: plainNodeCli })).toBe(1);
    expect(out.text).toContain("未更新");
    expect(out.text).toContain("退出码 3");
    expect(fs.readFileSync(path.join(stepPath(root, "step03-crash"), "expected-output.txt"), "utf8")).toBe("旧的\n");
  });
});

describe("golden:update 打印的 diff 表头", () => {
  it("中文标签原样显示，不被转义成 \\346…", () => {
    const text = unifiedDiff("旧 expected-output.txt", "新 expected-output.txt", "你> 你好\n", "你> 您好\n");
    expect(text.split("\n").slice(0, 2)).toEqual(["--- 旧 expected-output.txt", "+++ 新 expected-output.txt"]);
  });
});
