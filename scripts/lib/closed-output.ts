/**
 * 标准输出写不进去时安静地收场：`npm run demo | head -1` 读够了就关掉管道（EPIPE），
 * 或者输出重定向到了满了的磁盘（ENOSPC）。默认 Node 会打印一屏堆栈；这里先结束还在跑的子进程，
 * 读的一方不要了就以 0 结束，别的写入错误说一行原因、以 1 结束。
 */

const REASONS: Record<string, string> = { ENOSPC: "磁盘已满", EDQUOT: "超出了磁盘配额", EIO: "读写出错", EBADF: "输出已关闭" };

/** 装上之后，stdout 的写入错误不再变成堆栈：先调用 stopChildren，再退出。 */
export function exitQuietlyWhenOutputCloses(stopChildren: () => void = () => {}): void {
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    stopChildren();
    if (error.code === "EPIPE") process.exit(0);
    const reason = error.code && Object.hasOwn(REASONS, error.code) ? `${REASONS[error.code]}（${error.code}）` : error.message;
    process.stderr.write(`标准输出写不进去：${reason}\n`);
    process.exit(1);
  });
}
