/**
 * 这一章的结论：把假模型换成真实的模型服务，StreamFn 之上的代码一个字节都不用改。
 * 这里逐字节比较 step07 与 step08 的循环、扩展宿主、会话与工具——比较结果就是证明。
 * 单独复制出来的 step08（旁边没有 step07）没法比，跳过并说明原因。
 */

import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

import { stepRoot } from "./helpers/cli.js";

const step07 = path.resolve(stepRoot, "..", "step07-abort-extensions");
const hasStep07 = fs.existsSync(path.join(step07, "src"));
if (!hasStep07) console.warn("[跳过] 与 step07 的逐字节比较：旁边没有 step07-abort-extensions 目录");

const toolFiles = (root: string): string[] => fs.readdirSync(path.join(root, "src", "tools")).sort().map((name) => `src/tools/${name}`);

describe.skipIf(!hasStep07)("StreamFn 之上的代码与 step07 逐字节相同", () => {
  it("src/tools/ 下的文件清单相同", () => {
    expect(toolFiles(stepRoot)).toEqual(toolFiles(step07));
  });

  const files = hasStep07 ? ["src/agent-loop.ts", "src/extensions.ts", "src/session.ts", ...toolFiles(step07)] : [];
  it.each(files)("%s", (file) => {
    const ours = fs.readFileSync(path.join(stepRoot, file));
    const theirs = fs.readFileSync(path.join(step07, file));
    expect(ours.equals(theirs), `${file} 与 step07 不同：这一章不该改它`).toBe(true);
  });
});
