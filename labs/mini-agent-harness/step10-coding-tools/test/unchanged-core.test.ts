/**
 * 这一章只动它要讲的东西：三个编程工具、tool_call 钩子、第四个取消点。其余的代码（模型服务、SSE、重试、会话、渲染……）
 * 与 step09 逐字节相同：这里逐字节比较，证明 README 与 8.8 里「相同」这句话是真的。
 * 改了其中一个文件，这里就失败：要么改回去，要么把它列进 CHANGED 并在书里说明。
 * 单独复制出来的 step10（旁边没有 step09）没法比，跳过并说明原因。
 */

import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

import { stepRoot } from "./helpers/cli.js";

const step09 = path.resolve(stepRoot, "..", "step09-retry-timeout");
const hasStep09 = fs.existsSync(path.join(step09, "src"));
if (!hasStep09) console.warn("[跳过] 与 step09 的逐字节比较：旁边没有 step09-retry-timeout 目录");

/** 这一章改了的文件（相对步骤目录）。 */
const CHANGED = [
  "src/agent-loop.ts",
  "src/cli.ts",
  "src/demo.ts",
  "src/extensions.ts",
  "src/fake-model.ts",
  "src/rules.ts",
  "src/guards/extensions.ts",
  "src/tools/index.ts",
  "src/tools/read-file.ts",
  "src/tools/types.ts",
  "src/tools/validate.ts",
];

/** 这一章新加的文件。 */
const ADDED = [
  "extensions/permission-gate.ts",
  "src/terminal-ui.ts",
  "src/tool-call.ts",
  "src/guards/fs-errors.ts",
  "src/guards/shell-env.ts",
  "src/guards/text-file.ts",
  "src/guards/tool-call.ts",
  "src/tools/bash.ts",
  "src/tools/edit.ts",
  "src/tools/output-tail.ts",
  "src/tools/process-tree.ts",
  "src/tools/project-path.ts",
  "src/tools/write.ts",
];

/** 要比较的目录里的全部文件，相对步骤目录、用 / 分隔。 */
function files(root: string): string[] {
  return ["src", "extensions", "bench", "demo-files"].flatMap((dir) =>
    fs.existsSync(path.join(root, dir))
      ? fs.readdirSync(path.join(root, dir), { recursive: true, encoding: "utf8" }).filter((name) => fs.statSync(path.join(root, dir, name)).isFile()).map((name) => `${dir}/${name.split(path.sep).join("/")}`)
      : [],
  );
}

describe.skipIf(!hasStep09)("除了这一章改的，代码与 step09 逐字节相同", () => {
  const ours = hasStep09 ? files(stepRoot).filter((file) => !file.endsWith(".test-bundle.mjs")) : [];
  const theirs = hasStep09 ? files(step09).filter((file) => !file.endsWith(".test-bundle.mjs")) : [];

  it("文件清单：step09 的每个文件都还在，多出来的正好是 ADDED", () => {
    expect(ours.filter((file) => !theirs.includes(file)).sort()).toEqual([...ADDED].sort());
    expect(theirs.filter((file) => !ours.includes(file))).toEqual([]);
  });

  it.each(theirs.filter((file) => !CHANGED.includes(file)))("%s", (file) => {
    const same = fs.readFileSync(path.join(stepRoot, file)).equals(fs.readFileSync(path.join(step09, file)));
    expect(same, `${file} 与 step09 不同：这一章不该改它（或者把它列进 CHANGED，并在这一步补上它的测试）`).toBe(true);
  });

  it.each(hasStep09 ? CHANGED : [])("%s 确实改了（否则就该从 CHANGED 里拿掉）", (file) => {
    expect(fs.readFileSync(path.join(stepRoot, file)).equals(fs.readFileSync(path.join(step09, file)))).toBe(false);
  });
});
