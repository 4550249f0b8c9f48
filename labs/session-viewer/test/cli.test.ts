import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { harnessDir } from "../src/steps.ts";
import { copyFixture, runViewer } from "./helpers/cli.ts";

/** 步骤自己的加载函数读同一个文件（另一份副本）时给出的警告或报错，用来对照。 */
async function stepLoaderSays(fixture: string, step: string): Promise<{ warnings: string[]; error?: string }> {
  const { Session } = (await import(pathToFileURL(path.join(harnessDir, step, "src", "session.ts")).href)) as {
    Session: { open(file: string, warnings: string[]): unknown };
  };
  const warnings: string[] = [];
  try {
    Session.open(copyFixture(fixture), warnings);
    return { warnings };
  } catch (error) {
    return { warnings, error: (error as Error).message };
  }
}

const snapshot = (file: string) => ({ bytes: fs.readFileSync(file), mtimeMs: fs.statSync(file).mtimeMs, size: fs.statSync(file).size });

// 每个用例都起子进程：忙碌的机器上给足时间（只是上限）
describe("npm run view", { timeout: 120_000 }, () => {
  it("step07 的演示会话：打印页面路径，页面是自包含的 HTML", async () => {
    const file = copyFixture("step07-demo.jsonl", "demo.jsonl");
    const out = path.join(path.dirname(file), "page.html");
    const result = await runViewer([file, "--step", "07", "--out", out], undefined, "tsx"); // 和 npm run view 一样经过 tsx
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("消息 6，轮次 3，已取消 1");
    expect(result.stdout.trim().split("\n").at(-1)).toBe(out);
    expect(fs.readFileSync(out, "utf8")).toMatch(/^<!DOCTYPE html>/);
    // 页面不许加载外部字体，中文全靠系统字体：macOS、Windows、Linux 各自自带的那几种都点了名
    const fontStack = /font: 15px\/1\.6 ([^;]+);/.exec(fs.readFileSync(out, "utf8"))?.[1] ?? "";
    for (const font of ["PingFang SC", "Hiragino Sans GB", "Microsoft YaHei", "Noto Sans CJK SC", "WenQuanYi Micro Hei"]) {
      expect(fontStack).toContain(`"${font}"`);
    }
  });

  it("半行尾巴与不认识的条目：警告与步骤的加载函数一字不差，会话文件的字节和修改时间都不变", async () => {
    const file = copyFixture("hostile.jsonl");
    const before = snapshot(file);
    const result = await runViewer([file, "--step", "09", "--out", path.join(path.dirname(file), "page.html")]);
    expect(result.code).toBe(0);
    const expected = await stepLoaderSays("hostile.jsonl", "step09-retry-timeout");
    expect(expected.warnings).toHaveLength(2);
    expect(result.stderr).toBe(expected.warnings.map((w) => `[警告] ${w}\n`).join(""));
    // 步骤的加载函数会截掉半行：查看器只在副本上这样做
    expect(snapshot(file)).toEqual(before);
  });

  it("坏文件：和步骤一样的一行报错，退出码 1，文件不变，不生成页面", async () => {
    const file = copyFixture("corrupt.jsonl");
    const before = snapshot(file);
    const out = path.join(path.dirname(file), "page.html");
    const result = await runViewer([file, "--out", out]);
    const expected = await stepLoaderSays("corrupt.jsonl", "step09-retry-timeout");
    expect(expected.error).toContain("第 2 行不是合法的 JSON");
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`无法打开会话：${expected.error}\n`);
    expect(result.stdout).toBe("");
    expect(fs.existsSync(out)).toBe(false);
    expect(snapshot(file)).toEqual(before);
  });

  it("--out 指向会话文件本身：拒绝，文件不变", async () => {
    const file = copyFixture("step07-demo.jsonl");
    const before = snapshot(file);
    const result = await runViewer([file, "--out", file]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("查看器从不写会话文件");
    expect(snapshot(file)).toEqual(before);
  });

  it("参数错误：一行中文说明加用法", async () => {
    const missing = await runViewer([]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("请给出会话文件");
    const badStep = await runViewer(["x.jsonl", "--step", "03"]);
    expect(badStep.code).toBe(1);
    expect(badStep.stderr).toContain("--step 03：没有这个带会话的步骤");
    const notThere = await runViewer(["nope.jsonl"]);
    expect(notThere.code).toBe(1);
    expect(notThere.stderr).toContain("找不到会话文件");
  });

  it("没给 --step：按会话文件所在的步骤目录选规则", async () => {
    const file = copyFixture("step07-demo.jsonl");
    const dir = path.join(path.dirname(file), "step06-sessions", ".sessions");
    fs.mkdirSync(dir, { recursive: true });
    fs.copyFileSync(file, path.join(dir, "demo.jsonl"));
    const inStep = await runViewer([path.join(dir, "demo.jsonl"), "--out", path.join(dir, "page.html")]);
    expect(inStep.code).toBe(0);
    expect(inStep.stdout).toContain("按 step06-sessions 的规则读取");
  });
});
