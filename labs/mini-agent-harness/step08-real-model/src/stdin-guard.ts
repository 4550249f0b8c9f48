/**
 * 标准输入被别人关掉了（多半是扩展调用了 process.stdin.destroy()）：readline 等不到输入结束的 'end'，
 * 提示符会永远挂在那里，一个字也不说。发现时说一句，然后像 Ctrl+D 一样结束输入，程序照常收场。
 */

import type readline from "node:readline";

export function endInputIfStdinDestroyed(rl: readline.Interface, input: NodeJS.ReadableStream & { destroyed: boolean; readableEnded: boolean } = process.stdin): void {
  const closed = (): void => {
    if (input.readableEnded) return; // 正常读完（Ctrl+D、管道读完）：readline 自己会收场
    console.error("[警告] 标准输入被关掉了（是不是哪个扩展调用了 process.stdin.destroy()？）：像 Ctrl+D 一样结束输入。");
    rl.close();
  };
  if (input.destroyed) closed();
  else input.once("close", closed);
}
