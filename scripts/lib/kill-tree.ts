import { spawn, type ChildProcess } from "node:child_process";

// tsx 会再起一个子进程真正跑 demo，只杀 tsx 会留下孤儿进程占着管道。
// POSIX 上子进程以 detached 启动（自成进程组），按进程组杀；Windows 用 taskkill /T 杀整棵树。
export function killTree(child: ChildProcess, signal: NodeJS.Signals): void {
  const pid = child.pid;
  if (pid === undefined) return;
  try {
    if (process.platform === "win32") {
      spawn("taskkill", ["/pid", String(pid), "/T", "/F"], { stdio: "ignore", windowsHide: true }).on("error", () => {});
    } else {
      process.kill(-pid, signal);
    }
  } catch {
    // 进程已经退出：没什么可杀的
  }
}

/** 启动子进程时配合 killTree 使用的选项 */
export const treeSpawnOptions = { detached: process.platform !== "win32", windowsHide: true } as const;
