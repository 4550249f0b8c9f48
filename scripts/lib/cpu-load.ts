import { spawn, type ChildProcess } from "node:child_process";
import os from "node:os";

// 子进程里的忙循环。每约 200 ms 看一眼父进程还在不在：父进程没了（哪怕是被 kill -9），
// 它就自己退出，不会留下一个永远烧 CPU 的孤儿。
// POSIX 上父进程死后 ppid 会变；Windows 上 ppid 不变，所以再用 kill(pid, 0) 探测一次。
const BURN = `
const parent = Number(process.argv[1]);
let next = Date.now() + 200;
for (;;) {
  if (Date.now() < next) continue;
  next = Date.now() + 200;
  if (process.platform !== "win32" && process.ppid !== parent) process.exit(0);
  try { process.kill(parent, 0); } catch { process.exit(0); }
}
`;

export interface CpuLoad {
  /** 每个忙循环子进程的 pid */
  readonly pids: number[];
  /** 杀掉全部忙循环并等它们真正退出 */
  stop(): Promise<void>;
}

/** 默认负载：每个逻辑核一个忙循环 */
export function defaultLoad(): number {
  return typeof os.availableParallelism === "function" ? os.availableParallelism() : os.cpus().length;
}

/** 启动 count 个忙循环子进程（process.execPath -e …）。count 为 0 时什么也不启动。 */
export function startCpuLoad(count: number): CpuLoad {
  const children: ChildProcess[] = [];
  for (let i = 0; i < count; i++) {
    const child = spawn(process.execPath, ["-e", BURN, String(process.pid)], { stdio: "ignore", windowsHide: true });
    child.on("error", () => {});
    children.push(child);
  }
  const alive = (c: ChildProcess) => c.exitCode === null && c.signalCode === null;
  // 最后一道保险：无论主流程怎么结束（异常、process.exit），退出前都同步地发一次 kill
  const killAll = (): void => {
    for (const c of children) if (alive(c)) c.kill("SIGKILL");
  };
  process.on("exit", killAll);

  return {
    pids: children.map((c) => c.pid).filter((pid): pid is number => pid !== undefined),
    async stop() {
      await Promise.all(
        children.map(
          (c) =>
            new Promise<void>((resolve) => {
              if (!alive(c) || c.pid === undefined) return resolve();
              c.once("exit", () => resolve());
              c.kill("SIGKILL");
            }),
        ),
      );
      process.off("exit", killAll);
    },
  };
}

/** pid 对应的进程是否还活着（给测试确认忙循环已被清理） */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM：进程存在，只是不归我们管
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
