/**
 * 有终端时，tool_call 处理函数拿到的 ctx.ui：问题打在终端上，回答从同一个 readline 读回来。
 * 问的时候主循环正等着这一轮结束、没有在读输入，所以 rl.question 读到的那一行就是回答。
 * 在问题上按 Ctrl+C：readline 把它变成 SIGINT，cli.ts 取消这一轮；问题拿着同一个 signal，
 * 于是收起问题、当作回答了「不」（Pi 的终端界面里 Ctrl+C 也是「不」，但不取消这一轮）。
 */

import type readline from "node:readline";

import { visible } from "./guards/shown.js";
import type { Ui } from "./tool-call.js";

const LABELS = { info: "通知", warning: "警告", error: "错误" } as const;

export function terminalUi(rl: readline.Interface, write: (text: string) => void): Ui {
  /** 打印 query，读一行；signal 先触发就收起问题，得到 undefined。 */
  const ask = (query: string, signal: AbortSignal | undefined): Promise<string | undefined> =>
    new Promise((resolve) => {
      if (signal?.aborted) return resolve(undefined);
      const onAbort = (): void => resolve(undefined);
      signal?.addEventListener("abort", onAbort, { once: true });
      rl.question(query, { signal }, (answer) => {
        signal?.removeEventListener("abort", onAbort);
        resolve(answer);
      });
    });
  return {
    hasUI: true,
    ui: {
      // 标题与内容多半来自模型（命令、路径）：控制字符变成看得见的样子再打到终端上
      async confirm(title, message, opts) {
        const answer = await ask(`${visible(`[确认] ${title} ${message}`)}（y/N） `, opts?.signal);
        return /^(y|yes|是)$/i.test(answer?.trim() ?? "");
      },
      async select(title, options, opts) {
        write(`${visible(`[选择] ${title}`)}\n${options.map((option, i) => `  ${i + 1}. ${visible(option)}\n`).join("")}`);
        const answer = (await ask("序号> ", opts?.signal))?.trim();
        return options[Number(answer) - 1] ?? options.find((option) => option === answer);
      },
      notify(message, type = "info") {
        write(`${visible(`[${LABELS[type] ?? LABELS.info}] ${message}`)}\n`);
      },
    },
  };
}
