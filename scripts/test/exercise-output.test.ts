// 练习检查器的输出（issue 49 第 5 条）：长值不相等时只打印第一处不同的前后约 20 个字符和两边的长度，
// 一行不超过 200 个字符；--watch 每次检查之前清屏。全部在本进程里：比较函数、报告排版、监视循环。
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";

import { paint } from "../lib/color.ts";
import { same } from "../lib/exercises/helpers.ts";
import { CONTEXT_CHARS, describeMismatch, firstDifference, fitForReport } from "../lib/exercises/mismatch.ts";
import { EXERCISES } from "../lib/exercises/registry.ts";
import { formatReport } from "../lib/exercises/run.ts";
import { CLEAR_SCREEN, watchAndCheck } from "../lib/exercises/watch.ts";
import { repoRoot } from "../lib/paths.ts";

const temps: string[] = [];
afterEach(() => {
  for (const dir of temps.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** 练习 7 的错误写法：按 UTF-16 单元倒序 */
const splitReverse = (text: string): string => text.split("").reverse().join("");
const codePointReverse = (text: string): string => [...text].reverse().join("");

describe("长值不相等：第一处不同的前后，加上长度", () => {
  it("练习 7 的长文本按 UTF-16 单元倒序：报告里没有一行超过 200 个字符，点出下标、两边的长度与那一处的前后文", () => {
    const input = "模型工具".repeat(40) + "😀" + "abc".repeat(120) + "𠮷";
    const check = same("很长的文本", splitReverse(input), codePointReverse(input));
    expect(check.ok).toBe(false);
    expect(check.diff).toContain("第一处不同在下标 0");
    expect(check.diff).toContain(`看到 ${input.length}，期望 ${input.length}`);
    // 期望那一边从「𠮷」开始；看到的那一边是被拆开、又倒过来的两半
    expect(check.expected).toMatch(/^▸ "𠮷cbacba/);
    expect(check.saw).toMatch(/^▸ "\\udfb7\\ud842cba/);
    const exercise = EXERCISES.find((e) => e.id === 7)!;
    const report = formatReport({ exercise, stepDir: repoRoot, seed: 1, notStarted: false, checks: [{ name: "文件存在", ok: true }, check] }, repoRoot, paint(false));
    expect(report.split("\n").filter((line) => line.length > 200)).toEqual([]);
    expect(report).toContain(`    ${check.diff}`);
  });

  it("前后各约 20 个字符；中间的不同处用 ▸ 标出；两头还有时写省略号", () => {
    const a = "x".repeat(100) + "A" + "y".repeat(100);
    const b = "x".repeat(100) + "B" + "y".repeat(100);
    const m = describeMismatch(a, b, true)!;
    expect(m.where).toContain("下标 100");
    expect(m.saw).toBe(`…"${"x".repeat(CONTEXT_CHARS)}" ▸ "A${"y".repeat(CONTEXT_CHARS - 1)}"…`);
    expect(m.expected).toBe(`…"${"x".repeat(CONTEXT_CHARS)}" ▸ "B${"y".repeat(CONTEXT_CHARS - 1)}"…`);
  });

  it("不同处落在一对代理项中间：退到这一对的开头，片段里不出现凭空拆开的半个字符", () => {
    expect(firstDifference("a😀", "a😁")).toBe(1);
    const m = describeMismatch("好".repeat(50) + "😀" + "尾".repeat(50), "好".repeat(50) + "😁" + "尾".repeat(50), true)!;
    expect(m.saw).toContain('▸ "😀尾');
    expect(m.expected).toContain('▸ "😁尾');
  });

  it("一边是另一边的开头（少了一截）：说出长度，短的那边写「到此结束」", () => {
    const m = describeMismatch("a".repeat(90), "a".repeat(100), true)!;
    expect(m.where).toContain("看到 90，期望 100");
    expect(m.saw).toBe(`…"${"a".repeat(CONTEXT_CHARS)}" ▸ （到此结束）`);
    expect(m.expected).toBe(`…"${"a".repeat(CONTEXT_CHARS)}" ▸ "${"a".repeat(10)}"`);
  });

  it("全是拆开的代理项（每个转义成 6 个字符）：片段照样不超出一行的预算", () => {
    const lone = "\ud83d".repeat(300);
    const m = describeMismatch(lone + "x", lone + "y", true)!;
    expect(m.saw.length).toBeLessThan(160);
  });

  it("短的值照旧整个打印；不是字符串的长值按显示出来的文字找第一处不同", () => {
    expect(same("x", "abc", "abd")).toEqual({ name: "x", ok: false, saw: '"abc"', expected: '"abd"' });
    const long = same("x", Array.from({ length: 40 }, (_, i) => i), Array.from({ length: 40 }, (_, i) => (i === 30 ? -1 : i)));
    expect(long.diff).toContain("显示出来的文字从第");
    expect(long.saw).toContain("▸ 30,");
    expect(long.expected).toContain("▸ -1,");
  });

  it("检查器自己写下的长文字（没经过 same）：两边都有就只留不同处，只有一边就截短并说出全长", () => {
    const both = fitForReport<{ saw?: string; expected?: string; diff?: string }>({ saw: "甲".repeat(300) + "乙", expected: "甲".repeat(300) + "丙" });
    expect(both.diff).toContain("第 301 个字符");
    const one = fitForReport({ saw: "甲".repeat(300) });
    expect(one.saw).toContain("（共 300 个字符）");
    expect((one.saw ?? "").length).toBeLessThanOrEqual(200);
    const short = { saw: "a", expected: "b" };
    expect(fitForReport(short)).toBe(short);
  });
});

describe("--watch：每次检查之前清屏", () => {
  it("第一次检查、保存之后的每一次检查，结论之前都先清屏；不是终端时不写控制字符", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "exercise-watch-"));
    temps.push(dir);
    let written = "";
    let checks = 0;
    const footers: Array<() => void> = [];
    const footerSeen = () => new Promise<void>((resolve) => footers.push(resolve));
    const out = {
      isTTY: true,
      write: (text: string) => {
        written += text;
        if (text.includes("就会重新检查")) footers.shift()?.();
      },
    };
    let seen = footerSeen();
    const stop = watchAndCheck({ dir, out, check: async () => `结论 ${++checks}`, footer: "（保存就会重新检查）" });
    try {
      await seen;
      seen = footerSeen();
      fs.writeFileSync(path.join(dir, "reverse.ts"), "export default 1;\n");
      await seen;
    } finally {
      stop();
    }
    const once = (n: number) => `${CLEAR_SCREEN}结论 ${n}\n\n（保存就会重新检查）\n`;
    // 一次保存可能触发几个相隔较远的事件（机器很忙时）：之后也许还有一次，前两次必须一字不差
    expect(written.startsWith(once(1) + once(2)), JSON.stringify(written)).toBe(true);

    // 写进文件或管道：同样的结论，没有清屏的控制字符
    let plain = "";
    const done = new Promise<void>((resolve) => {
      const stopPlain = watchAndCheck({ dir, out: { write: (t: string) => ((plain += t), t.includes("就会重新检查") && (stopPlain(), resolve())) }, check: async () => "结论", footer: "（保存就会重新检查）" });
    });
    await done;
    expect(plain).toBe("结论\n\n（保存就会重新检查）\n");
  });
});
