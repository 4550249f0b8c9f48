/**
 * 文件系统的错误说成一句中文（read_file、write、edit 共用）。只用模型给的路径，不带本机的绝对路径：
 * 不向模型泄露机器信息，demo 的输出在每台机器上也一样。
 */

/** verb：读取、写入、修改。 */
export function describeFsError(error: unknown, shown: string, verb = "读取"): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === "ENOENT" || code === "ENOTDIR") return `文件不存在：${shown}`;
  if (code === "EACCES" || code === "EPERM") return `没有权限${verb}：${shown}`;
  if (code === "ELOOP") return `符号链接绕成了环：${shown}`;
  if (code === "EISDIR") return `${shown} 是一个目录`;
  if (code === "ENOSPC") return `磁盘满了，无法${verb}：${shown}`;
  return `无法${verb} ${shown}（${code ?? "未知错误"}）`;
}
