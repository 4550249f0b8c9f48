/**
 * 模型给的路径不可信：read_file、write、edit 都先经过这里，只许落在项目目录里面。
 *
 * 三道检查，一道比一道贵：
 *   1. 绝对路径（/etc/passwd、C:\…）一律拒绝；
 *   2. 只按字面看 ".."：还没碰文件系统，外面的文件存不存在也就不会泄露；
 *   3. 展开符号链接之后再比一次。要写的文件（连同它的上级目录）可能还不存在，
 *      这时比的是「最深的、已经存在的那一级」的真实路径——这一步必须在 mkdir 之前做，
 *      否则 mkdir -p 会先顺着一个指向外面的符号链接，在项目外面建出目录来。
 * 错误信息里只出现模型给的原路径，不出现本机的绝对路径（不向模型泄露机器信息，demo 的输出也处处一样）。
 * Pi 不做这些（它的 docs/security.md 说工作目录不是边界）；这里照 DESIGN §12 守住项目目录。
 */

import { lstat, realpath } from "node:fs/promises";
import path from "node:path";

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

/** 检查的结果：在里面就给出展开了符号链接的真实路径，否则给出一句交给模型的中文。 */
export type ProjectPath = { ok: true; path: string } | { ok: false; error: string };

/**
 * 把模型给的 requested（相对于项目目录 cwd）变成项目里的真实路径。verb 是「读取」「写入」「修改」，
 * 只用在错误信息里。目标不存在也可以（write 要新建），但它最深的已存在的上级必须在项目里。
 */
export async function resolveInsideProject(requested: string, cwd: string, verb: string): Promise<ProjectPath> {
  const fail = (error: string): ProjectPath => ({ ok: false, error });
  if (requested.trim() === "") return fail("路径不能为空");
  // 两种平台的写法都查：在 Linux 上 "C:\…" 也不该被当成普通文件名放过
  if (path.isAbsolute(requested) || path.win32.isAbsolute(requested)) {
    return fail(`不能使用绝对路径：${requested}（请给出相对于项目目录的路径）`);
  }
  const root = path.resolve(cwd);
  const target = path.resolve(root, requested);
  if (!isInside(root, target)) return fail(`不能${verb}项目目录之外的文件：${requested}`);

  // 根目录也要展开，否则它本身在链接后面时会误判
  const realRoot = await realpath(root);
  const existing = await deepestExisting(target);
  if (existing === "dangling") return fail(`不能${verb} ${requested}：它是一个指向不存在之处的符号链接`);
  if (!isInside(realRoot, existing.real)) return fail(`不能${verb}项目目录之外的文件：${requested}（符号链接指向了外面）`);
  return { ok: true, path: path.join(existing.real, ...existing.rest) };
}

/**
 * 从 target 往上找第一个存在的路径，返回它的真实路径与还不存在的那几段。
 * 悬空的符号链接（lstat 看得见、realpath 找不到）单独说出来：往里写，文件会落在链接指向的地方。
 */
async function deepestExisting(target: string): Promise<{ real: string; rest: string[] } | "dangling"> {
  const rest: string[] = [];
  let current = target;
  for (;;) {
    try {
      return { real: await realpath(current), rest };
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== "ENOENT" && code !== "ENOTDIR") throw error;
      if (await isSymlink(current)) return "dangling";
      const parent = path.dirname(current);
      if (parent === current) throw error;
      rest.unshift(path.basename(current));
      current = parent;
    }
  }
}

async function isSymlink(file: string): Promise<boolean> {
  try {
    return (await lstat(file)).isSymbolicLink();
  } catch {
    return false;
  }
}
