/**
 * 测试辅助（这一步的编程工具）：临时项目目录、按平台挑的命令、「这个进程还在不在」。
 *
 * 「什么都没留下」用记下的 pid 来证明，不靠计时：命令把自己（和它放到后台的进程）的 pid 写进文件，
 * 测试等文件出现，之后再等这些 pid 消失（上限只防真卡住）。
 */

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { onTestFinished } from "vitest";

import { until } from "./wait.js";

export const isWindows = process.platform === "win32";

/** 一个新的临时项目目录（测试结束时删掉），files 是要先放进去的文件。 */
export function tempProject(files: Record<string, string | Buffer> = {}): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "step10-项目 "));
  onTestFinished(() => fs.rmSync(dir, { recursive: true, force: true, maxRetries: 10 }));
  for (const [name, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), content);
  }
  return dir;
}

/** 能不能建符号链接（Windows 非管理员、Wine 建不了）：建不了的测试跳过并说明。 */
export const canSymlink = ((): boolean => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "symlink-probe-"));
  try {
    fs.symlinkSync(dir, path.join(dir, "link"), "junction");
    return true;
  } catch {
    return false;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
})();

/**
 * 一条跨平台的长命令：node 把自己的 pid 写进 file，然后一直不退出。双引号里没有 $、`、%，/bin/sh 与 cmd.exe 里一样。
 */
export function longRunningNode(file: string): string {
  return `node -e "require('fs').writeFileSync('${file}', String(process.pid)); setInterval(() => {}, 1000)"`;
}

/** 等 dir 里的 file 出现且不空，读出里面的 pid。 */
export async function pidFrom(dir: string, file: string): Promise<number> {
  const full = path.join(dir, file);
  await until(() => fs.existsSync(full) && fs.readFileSync(full, "utf8").trim() !== "", `${file} 里的 pid`);
  return Number(fs.readFileSync(full, "utf8").trim());
}

/** pid 不在了（Linux 上还没被收尸的僵尸也算不在：它已经死了，只差父进程读走退出码）。 */
export function gone(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
  } catch {
    // 没有 /proc（macOS、Windows），或者进程已经没了
  }
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ESRCH";
  }
}

/** 等这些 pid 都不在了（上限只防真卡住）。 */
export function allGone(pids: number[]): Promise<void> {
  return until(() => pids.every(gone), `进程 ${pids.join("、")} 结束`);
}

/** 测试留下的进程：测试结束时不管成败都结束掉，免得一个失败的测试把 sleep 留在机器上。 */
export function cleanUp(pids: number[]): void {
  onTestFinished(() => {
    for (const pid of pids) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // 已经不在了
      }
    }
  });
}
