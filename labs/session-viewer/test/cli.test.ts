import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { formatBytes, VIEW_LIMIT_BYTES } from "../src/input-checks.ts";
import { harnessDir } from "../src/steps.ts";
import { copyFixture, runViewer } from "./helpers/cli.ts";

/**
 * 步骤自己的只读加载函数读同一个文件（另一份副本）时给出的警告或报错，用来对照。
 * 不用 Session.open：它还会修补文件末尾（另存 .bak、截掉半行），警告里多说一句它做了什么，查看器不做这些。
 */
async function stepLoaderSays(fixture: string, step: string): Promise<{ warnings: string[]; error?: string }> {
  const { loadSession } = (await import(pathToFileURL(path.join(harnessDir, step, "src", "session.ts")).href)) as {
    loadSession(file: string, warnings: string[]): unknown;
  };
  const warnings: string[] = [];
  try {
    loadSession(copyFixture(fixture), warnings);
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
    // Session.open 会截掉半行：查看器不动文件
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

  const noStack = (stderr: string) => expect(stderr, "不该打印堆栈或 errno 原文").not.toMatch(/^\s+at |E[A-Z]{3,}:|Error:/m);

  it("给的不是普通的会话文件：目录（列出里面的 .jsonl）、相对路径找不到（说从哪算）、设备文件，都是一行说明", async () => {
    const file = copyFixture("step07-demo.jsonl", "demo.jsonl");
    const dir = path.dirname(file);
    const folder = await runViewer([dir]);
    expect(folder.code).toBe(1);
    expect(folder.stderr).toBe(`${dir} 是一个目录，不是会话文件：请给出其中的一个 .jsonl 文件，里面有：demo.jsonl\n`);
    const relative = await runViewer(["./x.jsonl"], dir);
    expect(relative.code).toBe(1);
    expect(relative.stderr).toBe(`找不到会话文件：${path.join(dir, "x.jsonl")}（相对路径按你敲命令时所在的目录算：${dir}）\n`);
    if (process.platform === "win32") {
      console.warn("[跳过] /dev/zero 与命名管道：Windows 上没有");
      return;
    }
    const device = await runViewer(["/dev/zero"]);
    expect(device.code).toBe(1);
    expect(device.stderr).toBe("/dev/zero 是设备文件，不是会话文件：查看器只读普通的 .jsonl 文件\n");
    const fifo = path.join(dir, "pipe.jsonl");
    const made = spawnSync("mkfifo", [fifo]);
    expect(made.status, "mkfifo 不可用").toBe(0);
    const pipe = await runViewer([fifo]); // 打开命名管道来读会一直等写的一方：必须在打开之前认出它
    expect(pipe.code).toBe(1);
    expect(pipe.stderr).toBe(`${fifo} 是命名管道，不是会话文件：查看器只读普通的 .jsonl 文件\n`);
  });

  it("超过上限的会话：读之前就拒绝，说出文件多大、上限多少、怎么办", async () => {
    const file = copyFixture("step07-demo.jsonl", "huge.jsonl");
    fs.truncateSync(file, VIEW_LIMIT_BYTES + 1); // 稀疏文件：不真的写 64 MB
    const result = await runViewer([file, "--out", path.join(path.dirname(file), "page.html")]);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`${file} 有 64 MB，超过查看器的上限 64 MB：画成一页浏览器也打不开。要接着用它，在步骤里 npm start -- --session；要看，复制一份只留最后几千行再画\n`);
    expect(fs.existsSync(path.join(path.dirname(file), "page.html"))).toBe(false);
    expect(formatBytes(1.1 * 1024 ** 3)).toBe("1.1 GB");
  });

  it("--out 写不了：是目录、上级是文件，一行说明，不留半个页面", async () => {
    const file = copyFixture("step07-demo.jsonl", "demo.jsonl");
    const dir = path.dirname(file);
    const intoDir = await runViewer([file, "--out", dir]);
    expect(intoDir.code).toBe(1);
    expect(intoDir.stderr).toBe(`--out ${dir} 是一个目录：请写页面的文件名，例如 ${path.join(dir, "page.html")}\n`);
    noStack(intoDir.stderr);
    const underFile = path.join(file, "page.html");
    const blocked = await runViewer([file, "--out", underFile]);
    expect(blocked.code).toBe(1);
    expect(blocked.stderr).toBe(`--out ${underFile}：建不了它所在的目录（路径中间有一段是文件，不是目录）\n`);
    expect(fs.readdirSync(dir).sort()).toEqual(["demo.jsonl"]);
  });
});
