/**
 * 真实伪终端里的 Ctrl+C 遇上一个永远不结束、也不理会信号的工具（issue 12 第 7 条）。
 * 第一次 Ctrl+C 结束这一轮、回到提示符；空闲时再按一次 Ctrl+C 退出。
 * 需要 python3 与它的 pty 模块（Linux、macOS 自带）；没有时跳过，并打印原因。
 */

import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";

import { cleanEnv, mainArgs, makeSandbox, removeSandbox, stepRoot, withoutProvider } from "./helpers/cli.js";
import { mustRun, python } from "./helpers/pty-python.js";

const driver = path.join(stepRoot, "test", "helpers", "pty_driver.py");
if (!python && !mustRun) console.warn("[跳过] 伪终端测试：找不到带 pty 模块的 python3（Windows 没有 POSIX 伪终端）");

/** 注册一个 upper 工具，它返回一个永远不会结束的 promise，也不看任何信号。 */
const HANGING_EXTENSION = `export default (pi) => pi.registerTool({
  name: "upper", description: "永远不结束", parameters: { type: "object" },
  execute: () => new Promise(() => {}),
});
`;

let sandbox: string;
beforeEach(() => {
  sandbox = makeSandbox();
  fs.writeFileSync(path.join(sandbox, "hang.mjs"), HANGING_EXTENSION);
});
afterEach(() => removeSandbox(sandbox));

describe.skipIf((!python && !mustRun) || withoutProvider)("伪终端里 Ctrl+C 与不结束的工具", () => {
  beforeAll(() => {
    if (!python) throw new Error("CI=true 时伪终端测试不许跳过：找不到带 pty 模块的 python3（.ci/run 会先用 apt 装上 python3）");
  });
  it("工具卡住时 Ctrl+C 回到提示符；空闲时再按一次 Ctrl+C 退出", () => {
    const script = [
      { expect: "你> " },
      { send: "把 abc 转成大写\r" },
      { expect: "[工具调用] upper" },
      { sleep: 0.3 },
      { send: "\u0003" },
      { expect: "[已取消]" },
      { expect: "你> " },
      { sleep: 0.3 },
      { send: "\u0003" },
      { expect: "再见。" },
    ];
    const result = spawnSync(python!, [driver, JSON.stringify(script), process.execPath, ...mainArgs(sandbox, ["--extension", "hang.mjs"])], {
      cwd: sandbox,
      encoding: "utf8",
      timeout: 60_000,
      env: cleanEnv({ SCRIPTED_PROVIDER_CHUNK_DELAY_MS: "0" }), // 按键落在工具挂住的时候，不在吐字途中：本地服务器不必 40ms 一段
    });
    if (result.status !== 0) throw new Error(`驱动脚本失败：${result.stderr}`);
    const report = JSON.parse(result.stdout) as { failure: string | null; exitCode: number | null; transcript: string };
    expect(report.failure, report.transcript).toBeNull();
    expect(report.exitCode).toBe(0);
    expect(report.transcript).toContain("[工具结果] upper → 工具 upper 被取消（出错）");
  });
});
