/**
 * npm run view -- <会话文件.jsonl> [--step NN] [--out <文件>] [--open]
 *
 * 用步骤自己的加载函数读会话（只读），画成一个自包含的 HTML 文件，打印它的路径。
 * 相对路径按你敲命令时所在的目录算（npm 会把脚本的工作目录换成包目录，原目录在 INIT_CWD 里）。
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { checkSessionFile, writePage } from "./input-checks.ts";
import { loadSession, SessionLoadError } from "./load.ts";
import { buildModel } from "./model.ts";
import { openInBrowser } from "./open.ts";
import { renderPage } from "./page.ts";
import { chooseStep } from "./steps.ts";

const USAGE = "用法：npm run view -- <会话文件.jsonl> [--step 06|07|08|09] [--out <文件.html>] [--open]";

interface Options {
  file?: string;
  step?: string;
  out?: string;
  open: boolean;
}

function parseArgs(args: string[]): Options {
  const options: Options = { open: false };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    const value = (): string => {
      const next = args[++i];
      if (next === undefined || next.startsWith("--")) throw new Error(`${arg} 后面要跟一个值。\n${USAGE}`);
      return next;
    };
    if (arg === "--step") options.step = value();
    else if (arg === "--out") options.out = value();
    else if (arg === "--open") options.open = true;
    else if (arg === "--help" || arg === "-h") throw new Error(USAGE);
    else if (arg.startsWith("--")) throw new Error(`不认识的参数：${arg}\n${USAGE}`);
    else if (options.file === undefined) options.file = arg;
    else throw new Error(`只能给一个会话文件，多了：${arg}\n${USAGE}`);
  }
  if (options.file === undefined) throw new Error(`请给出会话文件，例如 .sessions/demo.jsonl\n${USAGE}`);
  return options;
}

/**
 * 跑一次查看器：args 是命令行参数（不含 node 与脚本名），cwd 是相对路径的起点。返回退出码：0 写好了页面，1 出错（已说了一行）。
 * npm run view 的入口是 cli.ts；测试在自己的进程里调用它（test/helpers/cli.ts），不必每次起一个进程。
 */
export async function runViewer(args: string[], cwd: string): Promise<number> {
  try {
    await view(args, cwd);
    return 0;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    console.error(error instanceof SessionLoadError ? `无法打开会话：${message}` : message);
    return 1;
  }
}

async function view(args: string[], cwd: string): Promise<void> {
  const options = parseArgs(args);
  const file = path.resolve(cwd, options.file as string);
  const step = chooseStep(options.step, file, cwd);
  const out = options.out ? path.resolve(cwd, options.out) : defaultOut(file);
  if (fs.existsSync(out) && fs.existsSync(file) && fs.realpathSync(out) === fs.realpathSync(file)) {
    throw new Error("--out 指向了会话文件本身：查看器从不写会话文件，请换一个输出路径");
  }

  checkSessionFile(file, options.file as string, cwd); // 目录、管道、设备、太大的文件：读之前就说清楚
  const loaded = await loadSession(file, step.dir);
  // 和 npm start -- --session 一样的警告行
  for (const warning of loaded.warnings) console.error(`[警告] ${warning}`);
  const model = buildModel(loaded.lines, { name: loaded.name, step: step.name, stepNumber: step.number, warnings: loaded.warnings });
  const onChain = model.entries.filter((entry) => entry.onChain && entry.type === "message").length;
  if (onChain !== loaded.chainMessages) {
    console.error(`[警告] 查看器算出的链上消息（${onChain} 条）和 ${step.name} 加载出的（${loaded.chainMessages} 条）不一致，页面可能不准`);
  }

  writePage(out, renderPage(model)); // --out 写不了时一行说明，不留下半个页面
  const c = model.counts;
  console.log(`${model.entries.length} 条条目：消息 ${c.messages}，轮次 ${c.turns}，已取消 ${c.aborted}，出错 ${c.errors}，工具调用 ${c.toolCalls}，不进请求 ${c.offChain}（按 ${step.name} 的规则读取）`);
  console.log(out);
  if (options.open) openInBrowser(out);
}

/** 默认写到系统临时目录：同一个会话文件每次覆盖同一个页面。 */
function defaultOut(file: string): string {
  const stepPart = path.basename(path.dirname(path.dirname(file)));
  const base = `${stepPart}-${path.basename(file, path.extname(file))}`.replace(/[^\w.-]+/g, "_");
  return path.join(os.tmpdir(), "mini-agent-harness-view", `${base}.html`);
}

