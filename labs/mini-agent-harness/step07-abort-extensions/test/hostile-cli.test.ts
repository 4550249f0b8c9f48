/**
 * 命令行上的不可信输入（issue 22 第 12 条与「上一轮遗留」第二条）：
 * 空的参数值是用法错误；扩展留下的定时器拦不住学习者离开。
 * 两处都在 main.ts 被引用的行之后（valueOf 与文件末尾），所以 step07 也修了。
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it, type TestContext } from "vitest";

import { makeSandbox, removeSandbox, runCli } from "./helpers/cli.js";

function sandbox(test: TestContext): string {
  const dir = makeSandbox();
  test.onTestFinished(() => removeSandbox(dir));
  return dir;
}

describe.concurrent("空的参数值", () => {
  it.for(["--session", "--extension"])("%s \"\"：用法错误，退出码 2，不创建会话文件", async (flag, test) => {
    const dir = sandbox(test);
    const result = await runCli(dir, [flag, ""], "我叫小明\n");
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${flag} 后面需要一个文件路径`);
    expect(result.stdout).toBe("");
    expect(fs.existsSync(path.join(dir, ".sessions"))).toBe(false);
  });
});

describe.concurrent("扩展留下了还在跑的定时器", () => {
  it.for([
    ["/exit", "/exit\n"],
    ["管道读完（相当于 Ctrl+D）", ""],
  ])("%s：照样说再见并退出，退出码 0", async ([, input], test) => {
    const dir = sandbox(test);
    fs.writeFileSync(path.join(dir, "ticker.mjs"), "export default () => { setInterval(() => {}, 1000); };\n");
    // 不用问模型：要证明的只是扩展的定时器挡不住退出（修好之前进程永远不退出，runCli 到点判失败）
    const result = await runCli(dir, ["--extension", "ticker.mjs"], input!);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("已加载扩展：ticker.mjs");
    expect(result.stdout.trimEnd().endsWith("再见。")).toBe(true);
  });
});
