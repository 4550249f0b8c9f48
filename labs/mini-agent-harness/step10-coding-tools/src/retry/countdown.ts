/**
 * 等待时的一行倒计时：两层重试都可能一等就是几十秒，一声不吭看起来就像卡死了。
 * 不到 1 秒的等待不显示。终端上每秒原地改写这一行（\r 回到行首，\x1b[K 清到行尾），等完就擦掉；
 * 输出不是终端（管道、日志、golden 文件）或是认不得控制序列的哑终端（TERM=dumb）时只打印一行、从不更新——那里不该有跳动的数字。
 */

import { cursorAllowed } from "../guards/shown.js";

/** 倒计时写到哪里：process.stdout，或测试里手造的对象。 */
export interface CountdownOutput {
  write(text: string): unknown;
  isTTY?: boolean | undefined;
}

/** 开始显示；返回收起它的函数（等完、被取消、下一个事件到了，都要调用它）。line 收到的是还剩几秒。 */
export function startCountdown(ms: number, line: (secondsLeft: number) => string, out: CountdownOutput = process.stdout): () => void {
  if (ms <= 1000) return () => {};
  if (!cursorAllowed(out)) {
    out.write(`${line(Math.ceil(ms / 1000))}\n`);
    return () => {};
  }
  const until = Date.now() + ms;
  const draw = (): void => {
    out.write(`\r\x1b[K${line(Math.max(1, Math.ceil((until - Date.now()) / 1000)))}`);
  };
  draw();
  const timer = setInterval(draw, 1000);
  timer.unref(); // 倒计时本身不拖住进程
  return () => {
    clearInterval(timer);
    out.write("\r\x1b[K");
  };
}
