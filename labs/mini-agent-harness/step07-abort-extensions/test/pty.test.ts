/**
 * 真实伪终端里的 Ctrl+C（发送真实的 0x03 字节，而不是直接发信号）。
 * 需要 python3 与它的 pty 模块（Linux、macOS 自带）；没有时跳过，并打印原因。
 */

import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it, type TestContext } from "vitest";

import { mainArgs, makeSandbox, removeSandbox, stepRoot, tsxCli } from "./helpers/cli.js";
import { mustRun, python } from "./helpers/pty-python.js";

const driver = path.join(stepRoot, "test", "helpers", "pty_driver.py");
if (!python && !mustRun) console.warn("[跳过] 伪终端测试：找不到带 pty 模块的 python3（Windows 没有 POSIX 伪终端）");

interface Report {
  failure: string | null;
  exitCode: number | null;
  transcript: string;
}

/**
 * 在伪终端里按脚本驱动 CLI。异步起进程：两个用例可以同时跑，互不等待。
 * via "tsx"：和 npm start 一样经过 tsx 命令行（它自己再起一个 node 子进程，终端里的 Ctrl+C 两个进程都会收到）；
 * via "node"：直接 node 测试用的打包文件（见 helpers/cli.ts 的 mainArgs），省一个进程。
 */
function drive(cwd: string, script: object[], via: "tsx" | "node" = "node"): Promise<Report> {
  const cli = via === "tsx" ? [tsxCli, "src/main.ts"] : mainArgs(cwd, []);
  return new Promise((resolve, reject) => {
    const child = spawn(python!, [driver, JSON.stringify(script), process.execPath, ...cli], { cwd, env: { ...process.env, NO_COLOR: "1" } });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    // 只防真卡住（驱动脚本里每一步 expect 自己最多等 60 秒）
    const timer = setTimeout(() => child.kill("SIGKILL"), 110_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      if (code !== 0) reject(new Error(`驱动脚本失败（退出码 ${code}）：${stderr}`));
      else resolve(JSON.parse(stdout) as Report);
    });
  });
}

function sandbox(test: TestContext): string {
  const dir = makeSandbox({ src: true }); // 第一个用例和 npm start 一样经过 tsx 跑副本里的 src/main.ts
  test.onTestFinished(() => removeSandbox(dir));
  return dir;
}

describe.skipIf(!python && !mustRun)("伪终端里的 Ctrl+C 与 Ctrl+D", () => {
  beforeAll(() => {
    if (!python) throw new Error("CI=true 时伪终端测试不许跳过：找不到带 pty 模块的 python3（.ci/run 会先用 apt 装上 python3）");
  });
  it.concurrent("吐字时 Ctrl+C 取消这一轮并回到提示符；空闲时 Ctrl+C 打印 再见。并以 0 退出", async (test) => {
    const dir = sandbox(test);
    const report = await drive(dir, [
      { expect: "你> " },
      { send: "说个长的\r" },
      { expect: "助手> " },
      { expect: "这是" }, // 回复已经开始吐字（等的是字，不是固定的几百毫秒）
      { send: "\u0003" },
      { expect: "[已取消]" },
      { expect: "你> " },
      { sleep: 0.5 },
      { send: "\u0003" },
      { expect: "再见。" },
    ], "tsx"); // 和 npm start 一样：终端里的 Ctrl+C 经过 tsx 命令行
    expect(report.failure, report.transcript).toBeNull();
    expect(report.exitCode).toBe(0);
    // 半句话、[已取消]、空行、新的提示符，最后是再见。
    expect(report.transcript).toMatch(/助手> 这是[^\n]*\n\[已取消\]\n\n你> \n再见。/);
    // 回复的最后一句（src/rules.ts 的 longReply）没有出现：这一轮确实停在了中途
    expect(report.transcript).not.toContain("下次恢复时还能看到。");
  });

  // 一个进程测两件事（起一个伪终端里的进程要一两秒）：回复途中的 Ctrl+D 不会卡住，Ctrl+D 之后会话已经保存
  it.concurrent("回复途中按 Ctrl+D：这一轮（连同工具调用与第 2 轮）照常说完，随后正常退出，会话已经保存", async (test) => {
    const dir = sandbox(test);
    const report = await drive(dir, [
      { expect: "你> " },
      { send: "帮我算 17*38\r" },
      { expect: "助手> " },
      { send: "\u0004" },
      { expect: "再见。" },
    ]); // 假模型 40ms 一个 token：两轮要吐几百毫秒，Ctrl+D 落在途中
    expect(report.failure, report.transcript).toBeNull();
    expect(report.exitCode).toBe(0);
    expect(report.transcript).toContain("[第 2 轮结束]");
    const sessions = path.join(dir, ".sessions");
    const [name] = fs.readdirSync(sessions);
    const saved = fs.readFileSync(path.join(sessions, name!), "utf8").trimEnd().split("\n");
    expect(saved.map((line) => JSON.parse(line).message.role)).toEqual(["user", "assistant", "toolResult", "assistant"]);
  });
});
