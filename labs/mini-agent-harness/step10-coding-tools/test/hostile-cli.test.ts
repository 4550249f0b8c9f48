/**
 * 命令行上的不可信输入（issue 22 第 12 条与「上一轮遗留」第二条）：
 * 服务器与扩展送来的控制字符显示成看得见的写法，会话文件里是原文；空的参数值是用法错误，次数有上限；扩展留下的定时器拦不住学习者离开。
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it, type TestContext } from "vitest";

import { startProviderServer } from "scripted-provider";

import { makeSandbox, removeSandbox, runCliProcess } from "./helpers/cli.js";
import { runCli } from "./helpers/in-process.js";

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

describe.concurrent("次数有上限", () => {
  it.for([
    ["--retries", "101", "--retries 最大是 100"],
    ["--retries", "9007199254740991", "--retries 最大是 100"],
  ])("%s %s：用法错误，说出上限", async ([flag, value, reason], test) => {
    const dir = sandbox(test);
    const result = await runCli(dir, [flag!, value!], "我叫小明\n");
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(reason);
    expect(fs.existsSync(path.join(dir, ".sessions"))).toBe(false);
  });
  // 「--retries 100 照常接受」放在下面定时器的两个用例里：同样是起来就退出的进程，少起一个
});

describe("扩展留下了还在跑的定时器", () => {
  // 一个进程就够：/exit 与管道读完走到程序末尾的是同一条路（runCli 返回，main.ts 等输出写完再退出），两条路本身在测试进程里另有测试
  it("/exit 之后照样说再见并退出，退出码 0（顺带：--retries 100 正好是上限，照常接受）", async (test) => {
    const dir = sandbox(test);
    fs.writeFileSync(path.join(dir, "ticker.mjs"), "export default () => { setInterval(() => {}, 1000); };\n");
    // 不用问模型：要证明的只是扩展的定时器挡不住进程退出（修好之前进程永远不退出，到点判失败）；所以是真的子进程
    const result = await runCliProcess(dir, ["--extension", "ticker.mjs", "--retries", "100"], "/exit\n", {});
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("重试：最多 100 次");
    expect(result.stdout).toContain("已加载扩展：ticker.mjs");
    expect(result.stdout.trimEnd().endsWith("再见。")).toBe(true);
  });
});

describe("终端只显示看得见的字符（第 9 条）", () => {
  it("模型文字与扩展的错误里的 ESC 序列：屏幕上是 \\x1b，会话文件里是原文", async (test) => {
    const dir = sandbox(test);
    const server = await startProviderServer([{ text: "好\x1b[2J\x1b]0;pwned\x07的" }]);
    test.onTestFinished(() => server.close());
    fs.writeFileSync(path.join(dir, "loud.mjs"), 'export default (pi) => pi.onEvent(() => { throw new Error("\\x1b[31m红"); });\n');
    const env = { HARNESS_BASE_URL: server.openaiBaseUrl, HARNESS_API_KEY: "sk-local" };
    const result = await runCli(dir, ["--extension", "loud.mjs"], "你好\n", env);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout + result.stderr).not.toContain("\x1b");
    expect(result.stdout).toContain("助手> 好\\x1b[2J\\x1b]0;pwned\\x07的");
    expect(result.stderr).toContain("[扩展错误] \\x1b[31m红（扩展 loud.mjs）");
    const session = fs.readdirSync(path.join(dir, ".sessions")).map((name) => fs.readFileSync(path.join(dir, ".sessions", name), "utf8")).join("");
    expect(session).toContain(JSON.stringify("好\x1b[2J\x1b]0;pwned\x07的"));
  });
});
