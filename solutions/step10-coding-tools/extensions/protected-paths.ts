/**
 * 受保护的路径：write、edit 不许碰 .env，也不许碰 .git/、node_modules/ 里的文件；别的路径、别的工具照常。
 *
 *   npm start -- --extension extensions/protected-paths.ts
 *
 * 模型给的路径先按项目目录展开，再一段一段地比：./.env、sub/../.env 都是 .env，
 * .envrc、.github/、docs/node_modules.md 都不是（Pi 的示例 protected-paths.ts 比的是子串，会把 .envrc 也挡住）。
 * 只用 Pi 也有的接口，没有运行时的 import（node:path 两边都有）：同一个文件不改一个字也能放进 Pi 1.6.0。
 */

import path from "node:path";

import type { ExtensionAPI } from "../src/extensions.js";

/** 会改文件的两个工具。read_file（Pi 里叫 read）只读，不拦；bash 归 permission-gate.ts 管。 */
const WRITERS = ["write", "edit"];

/** 这个路径为什么受保护；不受保护就是 undefined。 */
function protectedBecause(cwd: string, requested: string): string | undefined {
  // 展开 . 和 ..（绝对路径也一样：Pi 的 write 接受绝对路径），再切成一段段的名字
  const parts = path.relative(cwd, path.resolve(cwd, requested)).split(path.sep);
  const folders = parts.slice(0, -1);
  if (parts.at(-1) === ".env") return "它是放密钥的 .env";
  if (folders.includes(".git")) return "它在 git 自己的目录 .git/ 里";
  if (folders.includes("node_modules")) return "它在依赖目录 node_modules/ 里，npm install 会覆盖它";
  return undefined;
}

export default function protectedPaths(pi: ExtensionAPI): void {
  pi.on("tool_call", (event, ctx) => {
    if (!WRITERS.includes(event.toolName)) return undefined;
    const requested = String(event.input.path);
    const why = protectedBecause(ctx.cwd, requested);
    if (why === undefined) return undefined;
    return { block: true, reason: `${requested} 受保护，没有${event.toolName === "write" ? "写入" : "修改"}：${why}` };
  });
}
