/**
 * 真实伪终端里的 Ctrl+C（发送真实的 0x03 字节，而不是直接发信号）。
 * step08：没配密钥时回复来自进程内的本地脚本服务器，Ctrl+C 断开的是一条真实的 HTTP 连接。
 * 需要 python3 与它的 pty 模块（Linux、macOS 自带）；没有时跳过，并打印原因。
 */

import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

import { cleanEnv, makeSandbox, removeSandbox, stepRoot, tsxCli } from "./helpers/cli.js";

const driver = path.join(stepRoot, "test", "helpers", "pty_driver.py");
const python = process.platform === "win32" ? undefined : ["python3", "python"].find((cmd) => spawnSync(cmd, ["-c", "import pty"]).status === 0);
if (!python) console.warn("[跳过] 伪终端测试：找不到带 pty 模块的 python3（Windows 没有 POSIX 伪终端）");

interface Report {
  failure: string | null;
  exitCode: number | null;
  transcript: string;
}

function drive(cwd: string, script: object[]): Report {
  const result = spawnSync(python!, [driver, JSON.stringify(script), process.execPath, tsxCli, "src/main.ts"], {
    cwd,
    encoding: "utf8",
    timeout: 60_000,
    env: cleanEnv(),
  });
  if (result.status !== 0) throw new Error(`驱动脚本失败：${result.stderr}`);
  return JSON.parse(result.stdout) as Report;
}

let sandbox: string;
beforeEach(() => {
  sandbox = makeSandbox();
});
afterEach(() => removeSandbox(sandbox));

describe.skipIf(!python)("伪终端里的 Ctrl+C 与 Ctrl+D", () => {
  it("吐字时 Ctrl+C 取消这一轮并回到提示符；空闲时 Ctrl+C 打印 再见。并以 0 退出", () => {
    const report = drive(sandbox, [
      { expect: "你> " },
      { send: "说个长的\r" },
      { expect: "助手> " },
      { sleep: 0.3 },
      { send: "\u0003" },
      { expect: "[已取消]" },
      { expect: "你> " },
      { sleep: 0.5 },
      { send: "\u0003" },
      { expect: "再见。" },
    ]);
    expect(report.failure, report.transcript).toBeNull();
    expect(report.exitCode).toBe(0);
    // 半句话、[已取消]、空行、新的提示符，最后是再见。
    expect(report.transcript).toMatch(/助手> 这是[^\n]*\n\[已取消\]\n\n你> \n再见。/);
    const full = "这是一段很长的回复，我会一个 token 一个 token 地慢慢吐出来，好让你看清流式输出是怎么回事。";
    expect(report.transcript).not.toContain(full);
  });

  it("回复途中按 Ctrl+D：这一轮照常说完，随后正常退出（不会卡住）", () => {
    const report = drive(sandbox, [
      { expect: "你> " },
      { send: "说个长的\r" },
      { expect: "助手> " },
      { send: "\u0004" },
      { expect: "再见。" },
    ]);
    expect(report.failure, report.transcript).toBeNull();
    expect(report.exitCode).toBe(0);
    expect(report.transcript).toContain("[第 1 轮结束]");
  });

  it("Ctrl+D 结束输入：正常退出，会话已经保存", () => {
    const report = drive(sandbox, [
      { expect: "你> " },
      { send: "我叫小明\r" },
      { expect: "[第 1 轮结束]" },
      { expect: "你> " },
      { send: "\u0004" },
      { expect: "再见。" },
    ]);
    expect(report.failure, report.transcript).toBeNull();
    expect(report.exitCode).toBe(0);
    const dir = path.join(sandbox, ".sessions");
    const [name] = fs.readdirSync(dir);
    const saved = fs.readFileSync(path.join(dir, name!), "utf8").trimEnd().split("\n");
    expect(saved.map((line) => JSON.parse(line).message.role)).toEqual(["user", "assistant"]);
  });
});
