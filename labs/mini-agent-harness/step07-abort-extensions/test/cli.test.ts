/**
 * 真实 CLI 进程的测试：通过管道喂输入，检查输出、退出码与会话文件。
 * 每个测试在自己的临时副本里运行（见 helpers/cli.ts）。
 */

import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

import { mainArgs, makeSandbox, removeSandbox, runCli } from "./helpers/cli.js";

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

describe("扩展", () => {
  it("--extension 可以给多次；加载失败的只报告，CLI 照常启动", async () => {
    fs.writeFileSync(path.join(sandbox, "extensions", "no-default.ts"), "export const x = 1;\n");
    const result = await runCli(
      sandbox,
      ["--extension", "extensions/logger.ts", "--extension", "missing.ts", "--extension", "extensions/no-default.ts"],
      "把 mini agent harness 转成大写\n",
    );
    expect(result.code).toBe(0);
    // 说出解析后的绝对路径，并点明路径从步骤目录算起（不是仓库根目录）
    const missing = path.join(fs.realpathSync(sandbox), "missing.ts");
    expect(result.stderr).toContain(`加载扩展失败 missing.ts：找不到 ${missing}（--extension 的路径相对于步骤目录 ${path.basename(fs.realpathSync(sandbox))}/，不是仓库根目录）`);
    expect(result.stderr).toContain("加载扩展失败 extensions/no-default.ts：扩展");
    expect(result.stderr).toContain("必须默认导出一个函数");
    expect(result.stdout).toContain("可用工具：calc、read_file、upper");
    expect(result.stdout).toContain("已加载扩展：logger.ts");
    expect(result.stdout).toContain("  [扩展] 第 1 次工具调用：upper");
    expect(result.stdout).toContain("[工具结果] upper → MINI AGENT HARNESS");
  });

  it("不加载扩展时调用 upper：未注册的工具（出错），循环不崩", async () => {
    const result = await runCli(sandbox, [], "把 mini agent harness 转成大写\n");
    expect(result.stdout).toContain("[工具结果] upper → 未注册的工具：upper（出错）");
    expect(result.stdout).toContain("[第 2 轮结束]");
  });
});

const noSignals = process.platform === "win32";
if (noSignals) console.warn("[跳过] SIGINT 测试：Windows 不能向别的进程发送 SIGINT（child.kill 会直接结束它）");

describe.skipIf(noSignals)("SIGINT（没有终端时信号直接落到 process 上）", () => {
  it("回复途中：取消这一轮、进程还活着；空闲时：再见。并以 0 退出", async () => {
    const child = spawn(process.execPath, mainArgs(sandbox, []), { cwd: sandbox, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    const waitFor = (text: string, from = 0): Promise<void> =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`等不到 ${text}，当前输出：\n${stdout}`)), 60_000); // 只防真卡住
        const check = (): void => {
          if (stdout.indexOf(text, from) >= 0) {
            clearTimeout(timer);
            child.stdout.off("data", check);
            resolve();
          }
        };
        child.stdout.on("data", check);
        check();
      });
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    const exited = new Promise<number | null>((resolve) => child.on("close", resolve));

    await waitFor("你> ");
    child.stdin.write("说个长的\n");
    await waitFor("助手> ");
    child.kill("SIGINT");
    await waitFor("[已取消]");
    await waitFor("你> ", stdout.indexOf("[已取消]"));
    expect(stdout).not.toContain("再见。");
    child.kill("SIGINT");
    expect(await exited).toBe(0);
    expect(stdout).toContain("再见。");
    // 半截回复也进了会话文件。
    const [file] = sessionFiles();
    const last = JSON.parse(fs.readFileSync(file!, "utf8").trimEnd().split("\n").at(-1)!);
    expect(last).toMatchObject({ id: "e2", parentId: "e1", message: { role: "assistant", stopReason: "aborted" } });
  });
});
