/**
 * 测试辅助：在测试自己的进程里跑命令行程序（src/cli.ts 的 runCli），不起子进程。
 *
 * 一个 CLI 子进程光是启动、载入 fetch 与加密模块就要 0.3 秒 CPU，同样一次对话在进程里只要几十毫秒。
 * 所以行为不依赖进程边界的测试都走这里；只有进程边界本身（退出码之外的信号、管道断开、伪终端、
 * 真实的标准输入 EOF、tsx 入口）才起子进程（helpers/cli.ts 的 runCliProcess 等）。
 *
 * runCli 的输入输出都从参数进来；只有 console.log / console.error 是全局的（程序各处的警告也用它们），
 * 这里按「这次调用」把它们接到这次调用自己的输出上（AsyncLocalStorage：并发的测试互不串线）。
 */

import { AsyncLocalStorage } from "node:async_hooks";
import { Console } from "node:console";
import { EventEmitter } from "node:events";
import { PassThrough, Writable } from "node:stream";

import { runCli as runProgram } from "../../src/cli.js";
import { cleanEnv, type CliResult } from "./cli.js";

/** 一次进行中的运行：往 stdin 写输入，读已有的输出，发 SIGINT，等它结束 */
export interface CliRun {
  stdin: PassThrough;
  stdout: () => string;
  stderr: () => string;
  /** 像没有终端时收到 Ctrl+C 的信号那样 */
  interrupt: () => void;
  /** 输出里出现 wanted（from 之后）时兑现；程序先结束了就带着输出失败 */
  printed: (wanted: string, from?: number) => Promise<void>;
  done: Promise<CliResult>;
}

const consoles = new AsyncLocalStorage<Console>();
const METHODS = ["log", "info", "debug", "warn", "error"] as const;
const routed = Symbol("routed");

/** 把全局 console 的几个方法改成「有这次调用的就写到它那里，否则照旧」（vitest 换过 console 时重新接上） */
function routeConsole(): void {
  const current = console as Console & { [routed]?: boolean };
  if (current[routed]) return;
  for (const method of METHODS) {
    const original = current[method].bind(current);
    current[method] = (...args: unknown[]) => {
      const own = consoles.getStore();
      if (own) own[method](...args);
      else original(...args);
    };
  }
  current[routed] = true;
}

/** 收集写进来的文字的流；每写一次通知一下等输出的人 */
function collector(onWrite: () => void): { stream: Writable; text: () => string } {
  let text = "";
  const stream = new Writable({
    decodeStrings: false,
    write(chunk: string | Buffer, _encoding, callback) {
      text += String(chunk);
      onWrite();
      callback();
    },
  });
  return { stream, text: () => text };
}

/** 开始一次运行：cwd 是步骤目录的副本（.sessions/ 与 --extension 从这里算），输入由测试随时写 */
export function startCli(cwd: string, args: string[], env: NodeJS.ProcessEnv = {}): CliRun {
  routeConsole();
  const waiters = new Set<() => void>();
  const notify = (): void => {
    for (const waiter of [...waiters]) waiter();
  };
  const out = collector(notify);
  const err = collector(notify);
  const stdin = new PassThrough({ encoding: "utf8" });
  const signals = new EventEmitter();
  let finished = false;
  const io = {
    argv: args,
    // 本地脚本服务器的节奏默认是 0：输入一次写完时吐字快慢不改变输出（要节奏的测试在 env 里给自己的值）
    env: cleanEnv({ SCRIPTED_PROVIDER_CHUNK_DELAY_MS: "0", ...env }),
    stdin,
    stdout: out.stream,
    signals,
    projectRoot: cwd,
  };
  const own = new Console({ stdout: out.stream, stderr: err.stream, colorMode: false });
  const done = consoles
    .run(own, () => runProgram(io))
    .then((code) => ({ stdout: out.text(), stderr: err.text(), code }))
    .finally(() => {
      finished = true;
      notify();
    });
  const printed = (wanted: string, from = 0): Promise<void> =>
    new Promise((resolve, reject) => {
      const check = (): void => {
        if (out.text().slice(from).includes(wanted)) {
          waiters.delete(check);
          resolve();
        } else if (finished) {
          waiters.delete(check);
          reject(new Error(`程序没打印「${wanted}」就结束了：\n${out.text()}\n${err.text()}`));
        }
      };
      waiters.add(check);
      check();
    });
  // 信号的处理函数同步地跑在发信号的人那里：在这次调用的输出里发，处理函数（和它触发的扩展代码）说的话才归这次调用
  const interrupt = (): void => void consoles.run(own, () => signals.emit("SIGINT"));
  return { stdin, stdout: out.text, stderr: err.text, interrupt, printed, done };
}

/** 把 input 整个写进标准输入后关闭（相当于最后按了 Ctrl+D），等程序结束，返回输出与退出码 */
export function runCli(cwd: string, args: string[], input: string, env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  const run = startCli(cwd, args, env);
  run.stdin.end(input);
  return run.done;
}
