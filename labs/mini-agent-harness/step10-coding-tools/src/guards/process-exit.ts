/**
 * 进程被叫停时先把话存下，再退出。
 *
 * 三种情况默认都会丢东西：SIGTERM（kill、系统关机）与 SIGHUP（终端窗口被关掉）直接结束进程，
 * 正在流的回复只剩用户那一句，exit 事件也不触发，锁文件留了下来；标准输出写不进去
 * （`| head` 读够了就关掉管道、写到满了的磁盘）时 Node 抛出 EPIPE / ENOSPC 的堆栈。
 * 这里都改成 Ctrl+C 那条路：取消这一轮（半截回复照常落盘），关掉输入，
 * 主循环读到「输入结束」后照常退出，退出时删掉锁文件。
 *
 * 退出码按惯例：信号是 128 + 编号（SIGTERM 143、SIGHUP 129）；读的一方不要了（EPIPE）不是错误，是 0；
 * 别的写入错误打印一行原因，是 1。回复卡住时再来一次信号就立刻退出。
 * Windows 上 SIGTERM 不会到达（kill 直接结束进程）；关掉控制台窗口时到达的是 SIGHUP，约 10 秒后系统强行结束进程。
 */

import os from "node:os";
import type { Interface } from "node:readline";
import { ioReason } from "./session-write.js";

const SIGNALS = ["SIGTERM", "SIGHUP"] as const;

/** 收到信号或输出断了之后：取消正在进行的回复（cancelReply），关掉输入 rl，让主循环走正常的退出。 */
export function saveReplyBeforeExit(rl: Interface, cancelReply: () => void = () => {}): void {
  let stopping = false;
  let signalled = false;
  const stop = (code: number): void => {
    if (stopping) return;
    stopping = true;
    process.exitCode = code;
    cancelReply();
    rl.close();
  };
  for (const signal of SIGNALS) {
    process.on(signal, () => {
      // 第二个信号：回复卡住了（比如工具不理会取消），不再等
      if (signalled) process.exit(128 + os.constants.signals[signal]);
      signalled = true;
      stop(128 + os.constants.signals[signal]);
    });
  }
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (stopping) return;
    if (error.code !== "EPIPE") console.error(`标准输出写不进去：${ioReason(error)}；已停止，说过的话都在会话文件里。`);
    stop(error.code === "EPIPE" ? 0 : 1);
  });
}
