/**
 * 测试辅助：等一件事发生（服务器收到了请求、连接断开了、输出里出现了某一行）。
 *
 * 测试等的是事件，不是毫秒数。这里的上限只决定「真卡住了」的时候多久报错，
 * 所以给得很宽：机器再忙（别的程序占满了 CPU），事件晚一点到也不会误报。
 * 计时的数字（多快）归 npm run bench 管，不进测试。
 */

import type { ChildProcess } from "node:child_process";

import { vi, type TestContext } from "vitest";

/** 等一个事件的上限：远大于机器再忙时事件的到达时间，又小于单个测试的时限。 */
export const EVENT_LIMIT_MS = 20_000;

// 模块加载时记下真的 setTimeout：测试打开假时钟（vi.useFakeTimers）之后，轮询也照常进行
const realSetTimeout = globalThis.setTimeout;

/**
 * 轮询 condition，直到它为真。不碰假时钟（vi.waitFor 在假时钟下会自己拨动时间，
 * 那会让「到点」提前发生——测试要自己决定何时拨钟）。
 */
export async function until(condition: () => boolean, what: string, limitMs = EVENT_LIMIT_MS): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`等了 ${limitMs}ms 仍然没有等到：${what}`);
    await new Promise((resolve) => realSetTimeout(resolve, 5));
  }
}

/**
 * 等子进程的输出里出现 wanted（字符串，或带一个分组的正则：返回那一组）；from 给了，只看输出从那个位置起的部分。
 * 等的是输出事件，不是毫秒数：机器再忙也只是晚一点到；子进程没打印就退出了，带着它的输出报错。真卡住由测试的时限兜底。
 */
export function printed(child: ChildProcess, output: () => string, wanted: string | RegExp, from = 0): Promise<string> {
  return new Promise((resolve, reject) => {
    const check = (): void => {
      const text = output().slice(from);
      const found = typeof wanted === "string" ? (text.includes(wanted) ? wanted : undefined) : wanted.exec(text)?.[1];
      if (found === undefined) return;
      stop();
      resolve(found);
    };
    const exited = (code: number | null): void => {
      stop();
      reject(new Error(`子进程没打印「${String(wanted)}」就退出了（退出码 ${code}）：\n${output()}`));
    };
    const stop = (): void => {
      child.stdout?.off("data", check);
      child.off("close", exited);
    };
    child.stdout?.on("data", check);
    child.on("close", exited);
    check();
  });
}

/** 反复执行断言，直到它通过（真时钟下用）；上限同样很宽。 */
export function eventually<T>(assertion: () => T, limitMs = EVENT_LIMIT_MS): Promise<T> {
  return vi.waitFor(assertion, { timeout: limitMs, interval: 5 });
}

/**
 * 打开假时钟，只接管 setTimeout / clearTimeout：被测代码的时限由测试拨动（vi.advanceTimersByTimeAsync），
 * 而 HTTP 连接、服务器照常跑。当前测试结束时自动换回真时钟。
 */
export function useFakeClock(test: TestContext): void {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
  test.onTestFinished(() => {
    vi.useRealTimers();
  });
}
