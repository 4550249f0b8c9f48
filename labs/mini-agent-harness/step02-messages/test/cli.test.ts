/**
 * 真实 CLI 进程的测试：通过管道喂输入，检查输出与退出码。
 */

import { afterEach, beforeEach, describe, expect, it } from "vitest";

import { makeSandbox, removeSandbox, runCli } from "./helpers/cli.js";

let sandbox: string;
beforeEach(() => {
  sandbox = makeSandbox();
});
afterEach(() => removeSandbox(sandbox));

describe("命令行", () => {
  it("模型看得见整段对话；Ctrl+D 打印 再见。并以 0 退出", async () => {
    const result = await runCli(sandbox, [], "我叫小明\n我叫什么\n");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("助手> 你叫小明。");
    expect(result.stdout.trimEnd().endsWith("再见。")).toBe(true);
  });

  it("/exit 退出，空行被忽略", async () => {
    const result = await runCli(sandbox, [], "\n   \n/exit\n我叫小明\n");
    expect(result.code).toBe(0);
    expect(result.stdout).not.toContain("助手>");
    expect(result.stdout).toContain("再见。");
  });

  it("不认识的参数：打印用法，退出码 2", async () => {
    const result = await runCli(sandbox, ["--bogus"], "");
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("不认识的参数：--bogus");
  });
});
