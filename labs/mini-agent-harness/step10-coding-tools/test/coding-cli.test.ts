/**
 * 整个 harness（runCli）在测试进程里跑，模型是本地脚本服务器（真的 HTTP，按 rules.ts 的剧本让模型调 write、edit、bash）。
 * 项目目录是一份临时副本（helpers/cli.ts 的 makeSandbox），工具只在那里面动手。
 * 真的信号、伪终端、harness 进程退出这些进程边界上的行为在 bash-process.test.ts。
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it, type TestContext } from "vitest";

import { SECRET_NAMES } from "../src/guards/shell-env.js";
import { makeSandbox, removeSandbox, withoutProvider } from "./helpers/cli.js";
import { allGone, canSymlink, cleanUp, isWindows, longRunningNode, pidFrom } from "./helpers/coding.js";
import { runCli, startCli } from "./helpers/in-process.js";

if (isWindows) console.warn("[跳过] 整个 harness 里的后台进程用例：Windows 上 shell 退出后 taskkill 找不到它留下的后台进程（见 WINDOWS.md）");
if (!canSymlink) console.warn("[跳过] 整个 harness 里的符号链接用例：这台机器上无法创建符号链接");

function sandbox(test: TestContext, files: Record<string, string> = {}): string {
  const dir = makeSandbox();
  test.onTestFinished(() => removeSandbox(dir));
  for (const [name, content] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), content);
  return dir;
}

/** 会话文件里的全部工具结果（模型收到的原文），按先后。 */
function toolResults(dir: string): Array<{ toolName: string; content: string; isError?: boolean }> {
  const sessions = path.join(dir, ".sessions");
  return fs
    .readdirSync(sessions)
    .filter((name) => name.endsWith(".jsonl"))
    .flatMap((name) => fs.readFileSync(path.join(sessions, name), "utf8").split("\n"))
    .filter((line) => line.trim() !== "")
    .map((line) => (JSON.parse(line) as { message: { role: string; toolName: string; content: string; isError?: boolean } }).message)
    .filter((message) => message.role === "toolResult");
}

describe.skipIf(withoutProvider)("经过本地脚本服务器：edit、write 与路径", () => {
  it("oldText 不唯一：错误结果说出 2 处，文件不动；带上整行再改：CRLF 留着", async (test) => {
    const NOTES = "- TODO 写测试\r\n- TODO 写文档\r\n";
    const dir = sandbox(test, { "notes.txt": NOTES });
    const { stdout, code } = await runCli(dir, [], "把 notes.txt 里的「TODO」改成「DONE」\n把 notes.txt 里的「TODO 写文档」改成「DONE 写文档」\n");
    expect(code).toBe(0);
    expect(stdout).toContain("[工具结果] edit → oldText 在 notes.txt 里出现了 2 处，必须唯一：多带几行上下文，让它只出现一次（出错）");
    expect(stdout).toContain("[工具结果] edit → 已修改 notes.txt：替换了 1 处");
    const [failed] = toolResults(dir);
    expect(failed).toMatchObject({ toolName: "edit", isError: true, content: expect.stringContaining("出现了 2 处") });
    expect(fs.readFileSync(path.join(dir, "notes.txt"), "utf8")).toBe("- TODO 写测试\r\n- DONE 写文档\r\n");
  });

  it("write 建出上级目录；../ 走出项目目录被挡住，外面什么也没有", async (test) => {
    const dir = sandbox(test);
    const { stdout } = await runCli(dir, [], "写入 docs/笔记.md：第一行\n写入 ../逃出去.txt：x\n");
    expect(fs.readFileSync(path.join(dir, "docs", "笔记.md"), "utf8")).toBe("第一行");
    expect(stdout).toContain("[工具结果] write → 不能写入项目目录之外的文件：../逃出去.txt（出错）");
    expect(fs.existsSync(path.join(dir, "..", "逃出去.txt"))).toBe(false);
  });

  it.skipIf(!canSymlink)("指向项目外面的符号链接：读、写、改都被挡住，外面的文件不动", async (test) => {
    const dir = sandbox(test);
    const away = fs.mkdtempSync(path.join(os.tmpdir(), "step10-外面-"));
    test.onTestFinished(() => fs.rmSync(away, { recursive: true, force: true }));
    fs.writeFileSync(path.join(away, "secret.txt"), "秘密");
    fs.symlinkSync(away, path.join(dir, "link"), "junction");
    const { stdout } = await runCli(dir, [], "读一下 link/secret.txt\n写入 link/new/x.txt：y\n把 link/secret.txt 里的「秘密」改成「公开」\n");
    expect(stdout).toContain("[工具结果] read_file → 不能读取项目目录之外的文件：link/secret.txt（符号链接指向了外面）（出错）");
    expect(stdout).toContain("[工具结果] write → 不能写入项目目录之外的文件：link/new/x.txt（符号链接指向了外面）（出错）");
    expect(stdout).toContain("[工具结果] edit → 不能修改项目目录之外的文件：link/secret.txt（符号链接指向了外面）（出错）");
    expect(fs.readdirSync(away)).toEqual(["secret.txt"]);
    expect(fs.readFileSync(path.join(away, "secret.txt"), "utf8")).toBe("秘密");
  });
});

describe.skipIf(withoutProvider)("经过本地脚本服务器：bash", () => {
  it.skipIf(isWindows)("sleep 100 & echo started，timeout 1：马上回来，后台的 sleep 不在了", async (test) => {
    const dir = sandbox(test);
    const { stdout } = await runCli(dir, [], "限时 1 秒运行 sleep 100 & echo $! > sleep.pid; echo started\n");
    const pid = await pidFrom(dir, "sleep.pid");
    cleanUp([pid]);
    expect(stdout).toContain('[工具调用] bash {"command":"sleep 100 & echo $! > sleep.pid; echo started","timeout":1}');
    expect(toolResults(dir).at(-1)).toMatchObject({ toolName: "bash", content: "started\n\n[退出码 0]" });
    await allGone([pid]);
  });

  it("密钥不进命令的环境：echo 它们什么也打印不出来", async (test) => {
    const dir = sandbox(test);
    const saved = SECRET_NAMES.map((name) => process.env[name]);
    for (const name of SECRET_NAMES) process.env[name] = `sk-${name}-不该被看见`;
    try {
      // 只改测试进程自己的环境（bash 从它继承）；交给 runCli 的 io.env 里没有密钥，模型照样是本地脚本服务器
      const command = isWindows ? "echo [%HARNESS_API_KEY%][%OPENAI_API_KEY%][%ANTHROPIC_API_KEY%]" : 'echo "[$HARNESS_API_KEY][$OPENAI_API_KEY][$ANTHROPIC_API_KEY]"';
      await runCli(dir, [], `运行 ${command}\n`);
    } finally {
      SECRET_NAMES.forEach((name, i) => (saved[i] === undefined ? delete process.env[name] : (process.env[name] = saved[i])));
    }
    const result = toolResults(dir).at(-1)!;
    expect(result.content.split(/\r?\n/)[0]).toBe(isWindows ? "[%HARNESS_API_KEY%][%OPENAI_API_KEY%][%ANTHROPIC_API_KEY%]" : "[][][]");
    expect(result.content).not.toContain("不该被看见");
  });

  it("10 MB 的输出：模型只收到最后 2000 行与一行说明", async (test) => {
    const dir = sandbox(test);
    const { stdout } = await runCli(dir, [], `运行 node -e "const chunk = 'abcdefghi\\n'.repeat(65536); for (let i = 0; i < 16; i++) process.stdout.write(chunk)"\n`);
    const total = 16 * 65536;
    expect(stdout).toContain("[工具结果] bash → abcdefghi …（共 2004 行）");
    const result = toolResults(dir).at(-1)!;
    expect(result.content.endsWith(`[输出太长，只留最后 2000 行：第 ${total - 1999}–${total} 行，共 ${total} 行]\n\n[退出码 0]`)).toBe(true);
    expect(Buffer.byteLength(result.content)).toBeLessThan(25_000);
  });

  it("Ctrl+C（没有终端时信号落在进程上）：这一轮取消、回到提示符，命令不在了；结果说已取消", async (test) => {
    const dir = sandbox(test);
    const run = startCli(dir, []);
    run.stdin.write(`运行 ${longRunningNode("child.pid")}\n`);
    const pid = await pidFrom(dir, "child.pid");
    cleanUp([pid]);
    const from = run.stdout().length;
    run.interrupt();
    await run.printed("[已取消]", from);
    await run.printed("你> ", from);
    await allGone([pid]);
    run.stdin.end();
    expect((await run.done).code).toBe(0);
    expect(toolResults(dir).at(-1)).toMatchObject({ toolName: "bash", isError: true, content: "（没有输出）\n\n[已取消：已结束整个进程树]" });
  });
});

describe.skipIf(withoutProvider)("权限闸门：标准输入不是终端", () => {
  it("bash 被阻止，模型收到的理由说怎么放行；命令没有运行", async (test) => {
    const dir = sandbox(test);
    const { stdout, code } = await runCli(dir, ["--extension", "extensions/permission-gate.ts"], "运行 node -e \"require('fs').writeFileSync('ran.txt', '')\"\n");
    expect(code).toBe(0);
    expect(stdout).toContain("已加载扩展：permission-gate.ts");
    expect(stdout).toContain("[工具结果] bash → 没有终端，没法问人能不能运行 bash");
    expect(toolResults(dir).at(-1)!.content).toContain("要允许：在终端里运行 npm start；或者不加载 extensions/permission-gate.ts");
    expect(fs.existsSync(path.join(dir, "ran.txt"))).toBe(false);
  });
});
