/**
 * 结束一条命令的整棵进程树：shell 本身、它起的程序、它留在后台的程序（sleep 100 &）。
 * 只杀 shell 不够：它的子孙会变成孤儿接着跑，还占着输出的管道，工具就永远等不到「输出结束」。
 *
 *   Linux、macOS：shell 以 detached 启动，自成一个进程组（组号就是它的 pid），process.kill(-pid) 打到组里每一个进程；
 *                 shell 退出之后组还在，后台进程照样打得到。
 *   Windows：     taskkill /pid N /T /F 按父子关系找下去。shell 已经退出时，它留下的后台进程就找不到了
 *                 （Pi 的源码里也这样承认）；这一条写在 WINDOWS.md 里。
 * 做法照 Pi 1.6.0（pi-coding-agent 的 src/utils/shell.ts：killProcessTree）。
 */

import { spawn, spawnSync } from "node:child_process";

/** 启动 shell 时要配合的选项：非 Windows 上自成进程组。 */
export const ownGroup = process.platform !== "win32";

/** wait：等 taskkill 做完再返回（harness 正在退出时要这样：它一走，shell 与子孙的父子关系就可能找不全）。 */
export function killTree(pid: number, wait = false): void {
  if (process.platform === "win32") {
    // 按名字调用（PATH 里的 taskkill），不写死 System32 的路径：CI 的 Wine 阶段靠 PATH 换上一个认 /T 的 taskkill
    const args = ["/pid", String(pid), "/T", "/F"];
    if (wait) spawnSync("taskkill", args, { stdio: "ignore", windowsHide: true });
    else spawn("taskkill", args, { stdio: "ignore", windowsHide: true }).on("error", () => {});
    return;
  }
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // 组里已经一个进程都不剩了
  }
}

/** 还在运行的命令。harness 退出时（Ctrl+D、SIGTERM 之后的 process.exit……）把它们的树都结束掉。 */
const running = new Set<number>();
let exitHookInstalled = false;

export function trackUntilExit(pid: number): () => void {
  if (!exitHookInstalled) {
    // 'exit' 里只能做同步的事：process.kill 是同步的；taskkill 用 spawnSync，做完了 harness 才退出
    process.once("exit", () => {
      for (const tracked of running) killTree(tracked, true);
    });
    exitHookInstalled = true;
  }
  running.add(pid);
  return () => running.delete(pid);
}
