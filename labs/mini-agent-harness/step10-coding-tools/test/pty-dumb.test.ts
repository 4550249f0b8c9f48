/**
 * 哑终端（TERM=dumb：Emacs 的 shell、某些 CI 日志）认不得 ESC 序列，会把它们原样印成乱码（issue 31 第 14 条）。
 * 在真实的伪终端里以 TERM=dumb 运行：一个 ESC 字节也不写；没有行编辑，Ctrl+C 与 Ctrl+D 由终端自己变成信号与输入结束，照常工作。
 * 需要 python3 与它的 pty 模块（Linux、macOS 自带）；没有时跳过，并打印原因。
 */

import { spawn } from "node:child_process";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";

import { mainArgs, makeSandbox, removeSandbox, stepRoot, withoutProvider } from "./helpers/cli.js";
import { mustRun, python } from "./helpers/pty-python.js";

const driver = path.join(stepRoot, "test", "helpers", "pty_driver.py");
if (!python && !mustRun) console.warn("[跳过] 哑终端测试：找不到带 pty 模块的 python3（Windows 没有 POSIX 伪终端）");

interface Report {
  failure: string | null;
  exitCode: number | null;
  transcript: string;
  raw: string;
}

/** 不带任何模型服务的配置（从 step08 起没有配置就用本地脚本服务器），TERM=dumb，不设 NO_COLOR。 */
function dumbEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, TERM: "dumb" };
  for (const name of Object.keys(env)) {
    if (name.startsWith("HARNESS_") || name.startsWith("SCRIPTED_PROVIDER_") || name.endsWith("_API_KEY") || name === "NO_COLOR" || name === "FORCE_COLOR") delete env[name];
  }
  return env;
}

function drive(cwd: string, script: object[]): Promise<Report> {
  return new Promise((resolve, reject) => {
    const child = spawn(python!, [driver, JSON.stringify(script), process.execPath, ...mainArgs(cwd, [])], { cwd, env: dumbEnv() });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill("SIGKILL"), 110_000); // 只防真卡住
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      if (code !== 0) reject(new Error(`驱动脚本失败（退出码 ${code}）：${stderr}`));
      else resolve(JSON.parse(stdout) as Report);
    });
  });
}

describe.skipIf((!python && !mustRun) || withoutProvider)("TERM=dumb 的伪终端", () => {
  beforeAll(() => {
    if (!python) throw new Error("CI=true 时伪终端测试不许跳过：找不到带 pty 模块的 python3");
  });
  it("一个 ESC 字节也不写；吐字时 Ctrl+C 照样取消这一轮，Ctrl+D 照样退出", async (test) => {
    const dir = makeSandbox();
    test.onTestFinished(() => removeSandbox(dir));
    const report = await drive(dir, [
      { expect: "你> " },
      { send: "说个长的\r" },
      { expect: "助手> 这是" },
      { send: "\u0003" },
      { expect: "[已取消]" },
      { expect: "你> " },
      { send: "\u0004" },
      { expect: "再见。" },
    ]);
    expect(report.failure, report.transcript).toBeNull();
    expect(report.exitCode).toBe(0);
    expect(report.raw).not.toContain("\x1b");
  });
});
