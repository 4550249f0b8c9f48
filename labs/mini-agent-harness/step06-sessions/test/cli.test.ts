/**
 * 真实 CLI 进程的测试：通过管道喂输入，检查输出、退出码与会话文件。
 * 每个测试在自己的临时副本里运行（见 helpers/cli.ts）。
 */

import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

import { makeSandbox, removeSandbox, runCli } from "./helpers/cli.js";

let sandbox: string;
beforeEach(() => {
  sandbox = makeSandbox();
});
afterEach(() => removeSandbox(sandbox));

const sessionFiles = (): string[] => {
  const dir = path.join(sandbox, ".sessions");
  return fs.existsSync(dir) ? fs.readdirSync(dir).map((name) => path.join(dir, name)) : [];
};

describe("命令行", () => {
  it("Ctrl+D（输入结束）：打印 再见。，退出码 0，会话已保存", async () => {
    const result = await runCli(sandbox, [], "我叫小明\n");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("助手> 你好，小明！我记住了。");
    expect(result.stdout.trimEnd().endsWith("再见。")).toBe(true);
    const [file] = sessionFiles();
    expect(fs.readFileSync(file!, "utf8").trimEnd().split("\n")).toHaveLength(2);
  });

  it("只打开、没说话就退出：不留下空的会话文件", async () => {
    const result = await runCli(sandbox, [], "\n");
    expect(result.code).toBe(0);
    expect(sessionFiles()).toEqual([]);
    const again = await runCli(sandbox, ["--continue"], "");
    expect(again.stdout).toContain("还没有会话");
  });

  it("/exit 退出，空行被忽略", async () => {
    const result = await runCli(sandbox, [], "\n   \n/exit\n我叫小明\n");
    expect(result.code).toBe(0);
    expect(result.stdout).not.toContain("[第 1 轮]");
    expect(result.stdout).toContain("再见。");
  });

  it("--continue 恢复最近的会话，模型看得见恢复的历史", async () => {
    await runCli(sandbox, [], "我叫小红\n");
    const result = await runCli(sandbox, ["--continue"], "我叫什么\n");
    expect(result.stdout).toContain("已恢复会话 .sessions/");
    expect(result.stdout).toContain("：2 条消息");
    expect(result.stdout).toContain("助手> 你叫小红。");
    expect(sessionFiles()).toHaveLength(1);
  });

  it("会话文件最后半行：报告、跳过，照常恢复", async () => {
    await runCli(sandbox, [], "我叫小红\n");
    const [file] = sessionFiles();
    fs.appendFileSync(file!, '{"type":"message","id":"e3","parentId":"e2","mess');
    const result = await runCli(sandbox, ["--continue"], "我叫什么\n");
    expect(result.stderr).toContain("第 3 行不完整");
    expect(result.stdout).toContain("助手> 你叫小红。");
    expect(result.code).toBe(0);
  });

  it("会话文件中间一行坏了：说出文件与行号，退出码 1", async () => {
    await runCli(sandbox, [], "我叫小红\n");
    const [file] = sessionFiles();
    const [first, second] = fs.readFileSync(file!, "utf8").trimEnd().split("\n");
    fs.writeFileSync(file!, `${first}\n{oops\n${second}\n`);
    const result = await runCli(sandbox, ["--continue"], "");
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`会话文件 ${path.basename(file!)} 第 2 行不是合法的 JSON`);
  });

  it("--session 打开指定文件；文件不存在时报错退出", async () => {
    await runCli(sandbox, [], "我叫小刚\n");
    const [file] = sessionFiles();
    const relative = path.relative(sandbox, file!);
    const ok = await runCli(sandbox, ["--session", relative], "我叫什么\n");
    expect(ok.stdout).toContain("你叫小刚。");
    const missing = await runCli(sandbox, ["--session", "nope.jsonl"], "");
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("找不到会话文件：nope.jsonl");
  });

  it("不认识的参数、缺值的参数：打印用法，退出码 2", async () => {
    const unknown = await runCli(sandbox, ["--bogus"], "");
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("不认识的参数：--bogus");
    expect(unknown.stderr).toContain("用法：");
    const noValue = await runCli(sandbox, ["--session"], "");
    expect(noValue.code).toBe(2);
    expect(noValue.stderr).toContain("--session 后面需要一个文件路径");
  });
});
