/**
 * npm run view -- <会话文件.jsonl> [--step NN] [--out <文件>] [--open]
 *
 * 入口：把命令行参数与你敲命令时所在的目录交给 view.ts 的 runViewer（npm 会把脚本的工作目录换成包目录，原目录在 INIT_CWD 里）。
 */
import { runViewer } from "./view.ts";

process.exitCode = await runViewer(process.argv.slice(2), process.env.INIT_CWD ?? process.cwd());
