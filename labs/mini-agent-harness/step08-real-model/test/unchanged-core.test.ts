/**
 * 这一章的结论：把假模型换成真实的模型服务，StreamFn 之上的代码一个字节都不用改。
 * 这里逐字节比较 step07 与 step08 的循环、扩展宿主、会话与工具——比较结果就是证明。
 * 唯一的例外是循环里转发增量的那一行：思考模型多了一种增量（thinking_delta），循环要把它也原样转发。
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
    if (file === "src/agent-loop.ts") {
      // 把那一行换回 step07 的写法之后，其余每个字节都必须相同
      const restored = ours.toString("utf8").replace(FORWARD_DELTAS.step08, FORWARD_DELTAS.step07);
      expect(restored, "agent-loop.ts 除了转发增量的那一行，与 step07 不同").toBe(theirs.toString("utf8"));
      expect(ours.includes(FORWARD_DELTAS.step08), "转发增量的那一行已经不是 step08 的写法：更新 FORWARD_DELTAS").toBe(true);
      return;
    }
    expect(ours.equals(theirs), `${file} 与 step07 不同：这一章不该改它`).toBe(true);
  });
});

/** agent-loop.ts 里唯一允许不同的一行：step07 只转发文字增量，step08 起连推理增量一起转发。 */
const FORWARD_DELTAS = {
  step07: `      if (event.type === "text_delta") yield event;\n`,
  step08: `      if (event.type !== "done") yield event; // 文字与推理（step08）的增量原样转发\n`,
};
