/**
 * 练习 5 的参考答案（第 8.3 章下半）：只许看项目目录的 list_dir。
 * 和 read_file 同样的三道关：绝对路径、字面上的 ..、展开符号链接之后再比一次。
 */

import { readdir, realpath, stat } from "node:fs/promises";
import path from "node:path";

import { isInside } from "../src/tools/read-file.js";
import type { ToolDefinition, ToolOutput } from "../src/tools/types.js";

async function listInsideRoot(requested: string, cwd: string): Promise<ToolOutput> {
  const fail = (content: string): ToolOutput => ({ content, isError: true });
  if (path.isAbsolute(requested) || path.win32.isAbsolute(requested)) return fail(`不能使用绝对路径：${requested}`);
  const root = path.resolve(cwd);
  if (!isInside(root, path.resolve(root, requested))) return fail(`不能查看项目目录之外的目录：${requested}`);
  try {
    const realRoot = await realpath(root);
    const realTarget = await realpath(path.resolve(root, requested));
    if (!isInside(realRoot, realTarget)) return fail(`不能查看项目目录之外的目录：${requested}（符号链接指向了外面）`);
    if (!(await stat(realTarget)).isDirectory()) return fail(`${requested} 不是目录`);
    const entries = await readdir(realTarget, { withFileTypes: true });
    const names = entries.map((entry) => (entry.isDirectory() ? `${entry.name}/` : entry.name)).sort();
    return { content: names.length > 0 ? names.join("\n") : "（空目录）" };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // 只用模型给的原路径，不带本机的绝对路径
    return fail(code === "ENOENT" || code === "ENOTDIR" ? `目录不存在：${requested}` : `无法查看 ${requested}（${code ?? "未知错误"}）`);
  }
}

export const listDirTool: ToolDefinition = {
  name: "list_dir",
  description: "列出项目目录里一个目录的内容；子目录名后面带 /",
  parameters: {
    type: "object",
    properties: { path: { type: "string", description: "相对于项目根目录的目录路径，例如 . 或 src" } },
    required: ["path"],
    additionalProperties: false,
  },
  execute(args, context) {
    return listInsideRoot(String(args.path), context.cwd);
  },
};
