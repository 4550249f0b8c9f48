/**
 * 进程被叫停时先把话存下，再退出。SIGTERM（kill、系统关机）与 SIGHUP（关掉终端窗口）默认直接结束进程：正在流的回复
 * 只剩用户那一句，exit 事件不触发，锁文件留了下来；标准输出写不进去（`| head` 读够了就关掉管道）时 Node 抛出 EPIPE 的堆栈。
 * 这里都改走 Ctrl+C 那条路：取消这一轮（半截回复照常落盘），关掉输入，主循环照常退出。退出码：信号是 128 + 编号，
 * EPIPE 是 0（读的一方不要了不是错误），别的写入错误是 1。Windows 上 SIGTERM 不会到达；关掉控制台窗口时到达的是 SIGHUP。
 */

import os from "node:os";
import type { Interface } from "node:readline";
import { ioReason } from "./session-write.js";

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
  for (const signal of ["SIGTERM", "SIGHUP"] as const) {
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
