/**
 * 这一章的结论：把假模型换成真实的模型服务，StreamFn 之上的代码一个字节都不用改。
 * 这里逐字节比较 step07 与 step08 的会话与工具——比较结果就是证明。
 * 例外只有两个，都与模型无关：step07 的循环与扩展宿主要和书里逐行讲解的一样，
 * 学习者写扩展时常犯的错误（工厂抛错后留下注册、异步观察者被拒绝、工具永远不结束……）
 * 从 step08 起才补上防线（第 8.5 章「已知局限」与「写扩展时常见的错误」）。
 * 循环（agent-loop.ts）另有一处与模型有关：思考模型多了一种增量（thinking_delta），循环要把它也原样转发。
 * 单独复制出来的 step08（旁边没有 step07）没法比，跳过并说明原因。
 */

import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

import { stepRoot } from "./helpers/cli.js";

const step07 = path.resolve(stepRoot, "..", "step07-abort-extensions");
const hasStep07 = fs.existsSync(path.join(step07, "src"));
if (!hasStep07) console.warn("[跳过] 与 step07 的逐字节比较：旁边没有 step07-abort-extensions 目录");

/** 为了 step07 的已知局限而改动的文件：必须确实不同，否则就该从清单里拿掉。 */
const HARDENED_FILES = ["src/agent-loop.ts", "src/extensions.ts"];

const toolFiles = (root: string): string[] => fs.readdirSync(path.join(root, "src", "tools")).sort().map((name) => `src/tools/${name}`);

describe.skipIf(!hasStep07)("StreamFn 之上的代码与 step07 逐字节相同", () => {
  it("src/tools/ 下的文件清单相同", () => {
    expect(toolFiles(stepRoot)).toEqual(toolFiles(step07));
  });

  const files = hasStep07 ? ["src/session.ts", "src/guards/session-entries.ts", "src/guards/session-lines.ts", "src/guards/session-lock.ts", "src/guards/session-write.ts", ...toolFiles(step07)] : [];
  it.each(files)("%s", (file) => {
    const ours = fs.readFileSync(path.join(stepRoot, file));
    const theirs = fs.readFileSync(path.join(step07, file));
    expect(ours.equals(theirs), `${file} 与 step07 不同：这一章不该改它`).toBe(true);
  });

  it.each(hasStep07 ? HARDENED_FILES : [])("%s 确实改了（否则就该从允许清单里拿掉）", (file) => {
    const ours = fs.readFileSync(path.join(stepRoot, file));
    const theirs = fs.readFileSync(path.join(step07, file));
    expect(ours.equals(theirs)).toBe(false);
  });
});
