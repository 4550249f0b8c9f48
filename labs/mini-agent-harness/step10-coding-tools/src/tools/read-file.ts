/**
 * read_file 工具：读取项目目录里的一个文本文件。
 *
 * 模型给的路径不可信，必须挡住一切"跑出项目目录"的写法：
 *   绝对路径（/etc/passwd、C:\…）、".." 逃逸、以及指向外面的符号链接。
 * 这几道检查 write、edit 也要用，放在 project-path.ts 里。
 * 错误信息里只出现模型给的原路径，不出现本机的绝对路径：
 *   一是不向模型泄露机器信息，二是演示输出在不同机器上保持一致。
 */

import { readFile, stat } from "node:fs/promises";
import { describeFsError } from "../guards/fs-errors.js";
import { resolveInsideProject } from "./project-path.js";
import type { ToolDefinition, ToolOutput } from "./types.js";

/** 单个文件的大小上限（64 KiB）：太大的文件会把模型的上下文撑爆。 */
export const MAX_FILE_BYTES = 64 * 1024;

/** 真正的读取流程。每一道检查失败都直接返回错误结果，不抛异常。 */
async function readInsideRoot(requested: string, cwd: string, signal?: AbortSignal): Promise<ToolOutput> {
  const fail = (content: string): ToolOutput => ({ content, isError: true });
  try {
    // 绝对路径、".."、指向外面的符号链接：project-path.ts
    const target = await resolveInsideProject(requested, cwd, "读取");
    if (!target.ok) return fail(target.error);

    // 只读普通文件：目录读不了，管道、设备文件读起来可能永远不返回
    const info = await stat(target.path);
    if (info.isDirectory()) return fail(`${requested} 是一个目录`);
    if (!info.isFile()) return fail(`${requested} 不是普通文件`);
    if (info.size > MAX_FILE_BYTES) return fail(`文件太大（${info.size} 字节，上限 ${MAX_FILE_BYTES}）`);

    // signal 交给 readFile：超时或 Ctrl+C 时读取真的停下（慢盘、网络盘上会有区别）
    return { content: await readFile(target.path, { encoding: "utf8", signal }) };
  } catch (error) {
    if (signal?.aborted) return fail(`读取被取消：${requested}`);
    return fail(describeFsError(error, requested));
  }
}

export const readFileTool: ToolDefinition = {
  name: "read_file",
  description: "读取项目目录里的一个文本文件，返回文件内容",
  parameters: {
    type: "object",
    properties: {
      path: { type: "string", description: "相对于项目根目录的文件路径，例如 src/main.ts" },
    },
    required: ["path"],
    additionalProperties: false,
  },
  // 参数已由注册表校验过，path 一定是字符串
  execute(args, context) {
    return readInsideRoot(String(args.path), context.cwd, context.signal);
  },
};
