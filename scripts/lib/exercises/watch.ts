/**
 * npm run exercise -- N --watch 的循环：先检查一次，之后步骤目录里有文件变化就再检查一次
 * （停顿 60 毫秒再跑，一次保存触发的几个事件只算一次；检查途中又保存了，查完再来一次）。
 * 每次检查之前清屏：上一次的结论不留在屏幕上，这次的第一项失败就在最上面。
 * 怎么检查（在哪个进程里）由调用方决定，见 scripts/exercise.ts。
 */
import fs from "node:fs";

/** 清掉屏幕和回滚区，光标回到左上角（ESC c 在有些终端里只清可见的部分，往上一翻还是上一次的结论）。 */
export const CLEAR_SCREEN = "\u001b[2J\u001b[3J\u001b[H";

export interface WatchOutput {
  isTTY?: boolean;
  write(text: string): unknown;
}

export interface WatchOptions {
  dir: string;
  out: WatchOutput;
  /** 检查一次，返回要打印的结论。 */
  check(): Promise<string>;
  /** 结论打印之后：准备好下一次检查（之后才说「保存就会重新检查」）。 */
  prepare?(): Promise<void>;
  /** 准备好之后打印的那一行。 */
  footer: string;
}

const IGNORED = /(^|[\\/])(node_modules|\.sessions|\.git)([\\/]|$)/;

/** 开始监视；返回停止的函数。 */
export function watchAndCheck(options: WatchOptions): () => void {
  const { out } = options;
  let running = false;
  let again = false;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const run = async (): Promise<void> => {
    if (running) {
      again = true;
      return;
    }
    running = true;
    // 终端里先清屏；写进文件、管道时不加控制字符
    if (out.isTTY) out.write(CLEAR_SCREEN);
    out.write(`${await options.check()}\n`);
    await options.prepare?.();
    if (!stopped) out.write(`\n${options.footer}\n`);
    running = false;
    if (again && !stopped) {
      again = false;
      void run();
    }
  };
  const watcher = fs.watch(options.dir, { recursive: true }, (_event, name) => {
    if (name !== null && IGNORED.test(String(name))) return;
    clearTimeout(timer);
    timer = setTimeout(() => void run(), 60);
  });
  void run();
  return () => {
    stopped = true;
    clearTimeout(timer);
    watcher.close();
  };
}
