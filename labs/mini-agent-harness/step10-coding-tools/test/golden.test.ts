/**
 * golden 测试（npm run verify）：demo 的标准输出必须与 expected-output.txt 逐字一致。
 * 只比对 stdout；换行统一成 LF，Windows 上检出的 CRLF 文件也能通过。
 */

import fs from "node:fs";
import path from "node:path";
import { expect, it } from "vitest";

import { runDemo, stepRoot, withoutProvider } from "./helpers/cli.js";

const lf = (text: string): string => text.replace(/\r\n/g, "\n");

it.skipIf(withoutProvider)("npm run demo 的输出与 expected-output.txt 一致", async () => {
  const expected = lf(fs.readFileSync(path.join(stepRoot, "expected-output.txt"), "utf8"));
  const result = await runDemo();
  expect(result.code, result.stderr).toBe(0);
  expect(lf(result.stdout)).toBe(expected);
  // 端口每次都不同、密钥不该出现：golden 里有了它们，要么比对不稳，要么泄露
  expect(result.stdout).not.toMatch(/127\.0\.0\.1:\d/);
  expect(result.stdout + result.stderr).not.toContain("sk-demo-");
});
