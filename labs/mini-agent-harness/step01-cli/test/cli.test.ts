/**
 * 真实 CLI 进程的测试：通过管道把输入喂给 src/main.ts，检查输出与退出码。
 * 关掉标准输入，就是在终端里按 Ctrl+D。
 */

import { afterEach, beforeEach, describe, expect, it } from "vitest";

import { echo } from "../src/echo-model.js";
import { makeSandbox, removeSandbox, runCli } from "./helpers/cli.js";

let sandbox: string;
beforeEach(() => {
  sandbox = makeSandbox();
});
afterEach(() => removeSandbox(sandbox));

describe("REPL", () => {
  it("每句话得到一句回声；提示符是「你> 」", async () => {
    const result = await runCli(sandbox, [], "你好\n");
    expect(result.stdout).toContain("你> 你好\n助手> 你说的是：你好\n");
  });

  it("Ctrl+D（输入结束）：打印 再见。，退出码 0", async () => {
    const result = await runCli(sandbox, [], "你好\n");
    expect(result.code).toBe(0);
    expect(result.stdout.trimEnd().endsWith("再见。")).toBe(true);
  });

  it("什么都不输入就按 Ctrl+D：同样正常退出", async () => {
    const result = await runCli(sandbox, [], "");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("再见。");
    expect(result.stdout).not.toContain("助手>");
  });

  it("/exit 退出，之后的输入不再处理", async () => {
    const result = await runCli(sandbox, [], "/exit\n你好\n");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("再见。");
    expect(result.stdout).not.toContain("助手>");
  });

  it("空行与只有空白的行被忽略", async () => {
    const result = await runCli(sandbox, [], "\n   \n\t\n你好\n");
    expect(result.stdout.match(/助手> /g)).toHaveLength(1);
  });

  it("最后一行没有换行符也照样处理", async () => {
    const result = await runCli(sandbox, [], "没有换行");
    expect(result.stdout).toContain("助手> 你说的是：没有换行");
  });

  it("不认识的参数：打印用法，退出码 2", async () => {
    const result = await runCli(sandbox, ["--bogus"], "");
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("不认识的参数：--bogus");
    expect(result.stderr).toContain("用法：npm start");
  });
});

describe("echo", () => {
  it("原样复述", () => {
    expect(echo("abc")).toBe("你说的是：abc");
  });
});
