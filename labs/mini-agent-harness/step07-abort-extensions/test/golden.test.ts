/**
 * golden 测试（npm run verify）：demo 的标准输出必须与 expected-output.txt 逐字一致。
 * 只比对 stdout；换行统一成 LF，Windows 上检出的 CRLF 文件也能通过。
 */

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, it } from "vitest";

import { runScriptWith, stepRoot, tsxLoader } from "./helpers/cli.js";

const lf = (text: string): string => text.replace(/\r\n/g, "\n");

it("npm run demo 的输出与 expected-output.txt 一致", async () => {
  const expected = lf(fs.readFileSync(path.join(stepRoot, "expected-output.txt"), "utf8"));
  // 和 npm run demo 一样经过 tsx（其余 CLI 测试用的是轻量加载器）
  // demo 的会话文件写进这次测试自己的临时目录：几份 npm test 同时跑时不会抢同一个文件（也不碰学习者的 .sessions/）
  const sessionsDir = fs.mkdtempSync(path.join(os.tmpdir(), "demo-sessions-"));
  process.env.DEMO_SESSIONS_DIR = sessionsDir;
  let result;
  try {
    result = await runScriptWith(tsxLoader, stepRoot, "src/demo.ts", [], "");
  } finally {
    delete process.env.DEMO_SESSIONS_DIR;
    fs.rmSync(sessionsDir, { recursive: true, force: true });
  }
  expect(result.code, result.stderr).toBe(0);
  // demo 若打印会话文件的路径（step06 的第二个进程会），换回默认位置再比：golden 里写的是 .sessions/demo.jsonl
  const shown = path.relative(stepRoot, path.join(sessionsDir, "demo.jsonl")).split(path.sep).join("/");
  expect(lf(result.stdout).split(shown).join(".sessions/demo.jsonl")).toBe(expected);
});
