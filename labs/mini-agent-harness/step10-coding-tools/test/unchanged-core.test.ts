/**
 * 这一章的结论之一：重试、超时与压缩全都包在 Agent 循环外面，循环本身一个字节都不用改。
 * 这里逐字节比较 step08 与 step09 的循环、扩展宿主与会话（step08 又与 step07 比过，所以它们从 step07 起就没变过）。
 * 工具目录里只有两个文件允许变：types.ts（每次调用自己的信号与时限）和 read-file.ts（把信号交给 readFile）。
 * 单独复制出来的 step09（旁边没有 step08）没法比，跳过并说明原因。
 */

import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

import { stepRoot } from "./helpers/cli.js";

const step08 = path.resolve(stepRoot, "..", "step08-real-model");
const hasStep08 = fs.existsSync(path.join(step08, "src"));
if (!hasStep08) console.warn("[跳过] 与 step08 的逐字节比较：旁边没有 step08-real-model 目录");

/** 这一章为了单次调用的信号与超时，允许改动的工具文件。 */
const CHANGED_TOOL_FILES = ["src/tools/types.ts", "src/tools/read-file.ts"];

const toolFiles = (root: string): string[] => fs.readdirSync(path.join(root, "src", "tools")).sort().map((name) => `src/tools/${name}`);

describe.skipIf(!hasStep08)("Agent 循环、扩展宿主、会话与 step08 逐字节相同", () => {
  it("src/tools/ 下的文件清单相同", () => {
    expect(toolFiles(stepRoot)).toEqual(toolFiles(step08));
  });

  const same = hasStep08
    ? ["src/agent-loop.ts", "src/extensions.ts", "src/guards/extensions.ts", "src/guards/shown.ts", "src/session.ts", "src/guards/session-entries.ts", "src/guards/session-lines.ts", "src/guards/session-lock.ts", "src/guards/session-write.ts", ...toolFiles(step08).filter((file) => !CHANGED_TOOL_FILES.includes(file))]
    : [];
  it.each(same)("%s", (file) => {
    const ours = fs.readFileSync(path.join(stepRoot, file));
    const theirs = fs.readFileSync(path.join(step08, file));
    expect(ours.equals(theirs), `${file} 与 step08 不同：这一章不该改它`).toBe(true);
  });

  it.each(hasStep08 ? CHANGED_TOOL_FILES : [])("%s 确实改了（否则就该从允许清单里拿掉）", (file) => {
    const ours = fs.readFileSync(path.join(stepRoot, file));
    const theirs = fs.readFileSync(path.join(step08, file));
    expect(ours.equals(theirs)).toBe(false);
  });
});
