/**
 * 交互式命令行入口：npm start。程序本身在 cli.ts 的 runCli 里；这里把真实的进程交给它：
 * 参数、环境变量、标准输入输出、Ctrl+C 的信号，以及被叫停时先存下半截回复（process-exit.ts）。
 * 测试在自己的进程里调用同一个 runCli，换上自己的参数与输入输出（test/helpers/cli.ts）。
 */

import path from "node:path";
import { fileURLToPath } from "node:url";
import { runCli } from "./cli.js";
import { saveReplyBeforeExit } from "./guards/process-exit.js";

const code = await runCli({
  argv: process.argv.slice(2),
  env: process.env,
  stdin: process.stdin,
  stdout: process.stdout,
  signals: process,
  projectRoot: path.resolve(path.dirname(fileURLToPath(import.meta.url)), ".."),
  onInput: saveReplyBeforeExit, // SIGTERM、SIGHUP、输出断了：和 Ctrl+C 一样先存下半截回复
});
// 收到信号时退出码已经定了（SIGTERM 是 143……）：不覆盖它
process.exitCode ??= code;
// 扩展可能留下了还在跑的定时器（setInterval、永远不结束的工厂）：学习者离开了，进程就该结束。
// 等标准输出写完再退出：管道在有的系统上是异步写的，直接 exit 可能丢掉最后几行。
process.stdout.write("", () => process.exit());
