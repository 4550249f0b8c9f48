/**
 * write 工具：在项目目录里新建或覆盖一个文件，需要时建出上级目录。
 * 名字与参数照 Pi 1.6.0（pi-coding-agent 的 src/core/tools/write.ts：write { path, content }，先 mkdir 再 writeFile，直接覆盖）。
 *
 * 与 Pi 不同的两处：
 *   - 路径只许在项目目录里（project-path.ts），而且在 mkdir 之前就查；
 *   - 取消只在动手之前的安全点上看：写完了才看到 Ctrl+C，就如实说「已写入」——文件确实改了，
 *     说成「已取消」是在骗模型（Pi 在这里会报 Operation aborted）。
 */

import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { describeFsError } from "../guards/fs-errors.js";
import { resolveInsideProject } from "./project-path.js";
import type { ToolDefinition, ToolOutput } from "./types.js";

async function writeInsideProject(requested: string, content: string, cwd: string, signal?: AbortSignal): Promise<ToolOutput> {
  const fail = (text: string): ToolOutput => ({ content: text, isError: true });
  const cancelled = fail(`写入被取消：${requested}（文件没有写）`);
  try {
    const target = await resolveInsideProject(requested, cwd, "写入");
    if (!target.ok) return fail(target.error);
    // 安全点一：开始之前
    if (signal?.aborted) return cancelled;
    await mkdir(path.dirname(target.path), { recursive: true });
    // 安全点二：目录建好、文件还没动
    if (signal?.aborted) return cancelled;
    await writeFile(target.path, content, "utf8");
  } catch (error) {
    return fail(describeFsError(error, requested, "写入"));
  }
  // 写完之后不再看信号：文件已经改了，就说改了
  return { content: `已写入 ${requested}` };
}

export const writeTool: ToolDefinition = {
  name: "write",
  description: "在项目目录里新建一个文件，或用 content 覆盖已有的文件；上级目录不存在时自动建出",
  parameters: {
    type: "object",
    properties: {
      path: { type: "string", description: "相对于项目目录的文件路径，例如 notes/todo.md" },
      content: { type: "string", description: "文件的完整内容" },
    },
    required: ["path", "content"],
    additionalProperties: false,
  },
  // 参数已由注册表校验过，两个都是字符串
  execute(args, context) {
    return writeInsideProject(String(args.path), String(args.content), context.cwd, context.signal);
  },
};
