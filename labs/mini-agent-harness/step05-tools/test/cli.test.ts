/**
 * 真实 CLI 进程的测试：通过管道喂输入，检查输出与退出码。
 * 每个测试在自己的临时副本里运行（见 helpers/cli.ts）。
 */

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

import { makeSandbox, removeSandbox, runCli } from "./helpers/cli.js";

let sandbox: string;
beforeEach(() => {
  sandbox = makeSandbox();
});
afterEach(() => removeSandbox(sandbox));

describe("命令行", () => {
  it("Ctrl+D（输入结束）：打印 再见。，退出码 0", async () => {
    const result = await runCli(sandbox, [], "帮我算 17*38\n");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("[工具结果] calc → 646");
    expect(result.stdout).toContain("助手> 结果是 646。");
    expect(result.stdout.trimEnd().endsWith("再见。")).toBe(true);
  });

  it("/exit 退出，空行被忽略", async () => {
    const result = await runCli(sandbox, [], "\n   \n/exit\n我叫小明\n");
    expect(result.code).toBe(0);
    expect(result.stdout).not.toContain("[第 1 轮]");
    expect(result.stdout).toContain("再见。");
  });

  it("不认识的参数：打印用法，退出码 2", async () => {
    const result = await runCli(sandbox, ["--bogus"], "");
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("不认识的参数：--bogus");
    expect(result.stderr).toContain("用法：");
  });
});

describe("read_file 守在项目目录里", () => {
  it("../、绝对路径、指向外面的符号链接都被拒绝，对话照常继续", async (ctx) => {
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), "harness-outside-"));
    fs.writeFileSync(path.join(outside, "secret.txt"), "机密\n");
    let linkProblem: string | undefined;
    try {
      fs.symlinkSync(path.join(outside, "secret.txt"), path.join(sandbox, "link-out.txt"));
    } catch (error) {
      linkProblem = `无法创建符号链接（${(error as Error).message}），符号链接那一句没有检查`;
      console.warn(`[跳过符号链接那一句] ${linkProblem}`);
    }
    const linked = linkProblem === undefined;
    const absolute = process.platform === "win32" ? "C:\\Windows\\win.ini" : "/etc/passwd";
    const input = ["读一下 ../package.json", `读一下 ${absolute}`, ...(linked ? ["读一下 link-out.txt"] : []), "我叫小明", ""].join("\n");
    const result = await runCli(sandbox, [], input);
    fs.rmSync(outside, { recursive: true, force: true, maxRetries: 10 });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("[工具结果] read_file → 不能读取项目目录之外的文件：../package.json（出错）");
    expect(result.stdout).toContain(`[工具结果] read_file → 不能使用绝对路径：${absolute}`);
    if (linked) expect(result.stdout).toContain("[工具结果] read_file → 不能读取项目目录之外的文件：link-out.txt（符号链接指向了外面）（出错）");
    expect(result.stdout).not.toContain("机密");
    expect(result.stdout).toContain("助手> 你好，小明！我记住了。");
    // 别的断言都过了，但少查了一句：不能报「通过」，要报「跳过」并说出原因（CI 里只有名单上的跳过才放行）
    if (linkProblem !== undefined) ctx.skip(linkProblem);
  });
});
