/**
 * read_file 工具：读取项目目录里的一个文本文件。
 *
 * 模型给的路径不可信，必须挡住一切"跑出项目目录"的写法：
 *   绝对路径（/etc/passwd、C:\…）、".." 逃逸、以及指向外面的符号链接。
 * 错误信息里只出现模型给的原路径，不出现本机的绝对路径：
 *   一是不向模型泄露机器信息，二是演示输出在不同机器上保持一致。
 */

import { realpath, readFile, stat } from "node:fs/promises";
import path from "node:path";
import type { ToolDefinition, ToolOutput } from "./types.js";

/** 单个文件的大小上限（64 KiB）：太大的文件会把模型的上下文撑爆。 */
export const MAX_FILE_BYTES = 64 * 1024;

/**
 * target 是否在 root 里面（含 root 本身）。两个参数都应是已经 resolve 过的绝对路径。
 * 不能用 startsWith 比字符串：/root/step07-x 也以 /root/step07 开头。
 * path.relative 按路径分段比较；在 Windows 上跨盘符时它会直接返回绝对路径，也算"在外面"。
 * pathApi 参数只为测试：在 Linux 上也能用 path.win32 检验 Windows 的规则。
 */
export function isInside(root: string, target: string, pathApi: path.PlatformPath = path): boolean {
  const relative = pathApi.relative(root, target);
  if (relative === "") return true;
  // 只看第一段是不是 ".."：名叫 "..notes" 的文件仍然在里面
  const first = relative.split(pathApi.sep)[0];
  return first !== ".." && !pathApi.isAbsolute(relative);
}

/** 把文件系统错误翻译成一句中文；只用模型给的路径，不带本机绝对路径。 */
function describeFsError(error: unknown, shown: string): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === "ENOENT" || code === "ENOTDIR") return `文件不存在：${shown}`;
  if (code === "EACCES" || code === "EPERM") return `没有权限读取：${shown}`;
  if (code === "ELOOP") return `符号链接绕成了环：${shown}`;
  return `无法读取 ${shown}（${code ?? "未知错误"}）`;
}

/** 真正的读取流程。每一道检查失败都直接返回错误结果，不抛异常。 */
async function readInsideRoot(requested: string, cwd: string, signal?: AbortSignal): Promise<ToolOutput> {
  const fail = (content: string): ToolOutput => ({ content, isError: true });
  if (requested.trim() === "") return fail("路径不能为空");

  // 1. 绝对路径一律拒绝。两种平台的写法都查：在 Linux 上 "C:\…" 也不该被当成普通文件名放过
  if (path.isAbsolute(requested) || path.win32.isAbsolute(requested)) {
    return fail(`不能使用绝对路径：${requested}（请给出相对于项目目录的路径）`);
  }

  // 2. 先只按字面检查 ".."：还没碰文件系统，外面的文件存不存在也就不会泄露
  const root = path.resolve(cwd);
  if (!isInside(root, path.resolve(root, requested))) return fail(`不能读取项目目录之外的文件：${requested}`);

  try {
    // 3. 再把符号链接都展开后比一次；根目录也要展开，否则它本身在链接后面时会误判
    const realRoot = await realpath(root);
    const realTarget = await realpath(path.resolve(root, requested));
    if (!isInside(realRoot, realTarget)) return fail(`不能读取项目目录之外的文件：${requested}（符号链接指向了外面）`);

    // 4. 只读普通文件：目录读不了，管道、设备文件读起来可能永远不返回
    const info = await stat(realTarget);
    if (info.isDirectory()) return fail(`${requested} 是一个目录`);
    if (!info.isFile()) return fail(`${requested} 不是普通文件`);
    if (info.size > MAX_FILE_BYTES) return fail(`文件太大（${info.size} 字节，上限 ${MAX_FILE_BYTES}）`);

    // signal 交给 readFile：超时或 Ctrl+C 时读取真的停下（慢盘、网络盘上会有区别）
    return { content: await readFile(realTarget, { encoding: "utf8", signal }) };
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
