import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { paint } from "./color.ts";
import type { Writer } from "./golden-runner.ts";
import { killTree, treeSpawnOptions } from "./kill-tree.ts";

/** README 快速开始里的一行命令，拆成若干个 npm 调用（`a && b` 依次执行，前一个失败就停） */
export interface QuickStartCommand {
  line: string;
  npmArgs: string[][];
}

const FENCE = /^ {0,3}(`{3,}|~{3,})(.*)$/;

/** 读出 Markdown 里的所有围栏代码块（只要内容行） */
export function fencedBlocks(markdown: string): string[][] {
  const blocks: string[][] = [];
  let open: { fence: string; lines: string[] } | undefined;
  for (const line of markdown.replace(/\r\n?/g, "\n").split("\n")) {
    const m = FENCE.exec(line);
    if (open === undefined) {
      if (m?.[1] !== undefined) open = { fence: m[1], lines: [] };
    } else if (m?.[1] !== undefined && m[1][0] === open.fence[0] && m[1].length >= open.fence.length && (m[2] ?? "").trim() === "") {
      blocks.push(open.lines);
      open = undefined;
    } else {
      open.lines.push(line);
    }
  }
  return blocks;
}

/** 代码块里的命令行：去掉空行、# 注释、行首的 `$ ` 提示符和行尾的 `# 注释` */
function commandLines(block: string[]): string[] {
  return block
    .map((l) => l.trim().replace(/^(?:\$|PS>|>)\s+/, "").replace(/\s+#.*$/, "").trim())
    .filter((l) => l !== "" && !l.startsWith("#"));
}

/** 把一行拆成 npm 调用。只接受 `npm …` 与 `&&`；别的 shell 语法在这里直接报错，免得检查的不是 README 写的东西 */
export function splitCommand(line: string): string[][] {
  if (/[|;<>`&]|\$\(/.test(line.replace(/&&/g, ""))) {
    throw new Error(`「${line}」里有 && 以外的 shell 语法，fresh-check 只会执行 npm 命令`);
  }
  return line.split("&&").map((part) => {
    const words = part.trim().match(/"[^"]*"|'[^']*'|\S+/g)?.map((w) => w.replace(/^(["'])(.*)\1$/, "$2")) ?? [];
    if (words[0] !== "npm" || words.length < 2) throw new Error(`「${part.trim()}」不是一条 npm 命令`);
    return words.slice(1);
  });
}

/**
 * 快速开始的代码块：第一个「每一行都是 npm 命令，且其中有 npm ci」的围栏代码块。
 * README 里应当是：
 *
 *     ```bash
 *     npm ci && npm run demo
 *     npm test
 *     ```
 */
export function parseQuickStart(readme: string): QuickStartCommand[] {
  for (const block of fencedBlocks(readme)) {
    const lines = commandLines(block);
    if (lines.length === 0 || !lines.every((l) => /^npm\s/.test(l))) continue;
    if (!lines.some((l) => /^npm\s+ci\b/.test(l))) continue;
    return lines.map((line) => ({ line, npmArgs: splitCommand(line) }));
  }
  throw new Error("README.md 里没有找到快速开始的代码块：应当有一个只含 npm 命令的代码块，例如 `npm ci && npm run demo` 与 `npm test` 两行");
}

/**
 * 找 npm 的 CLI 入口，好用 process.execPath 直接启动它（不经过 shell，Windows 上也一样）：
 * 先看 npm 运行脚本时设置的 npm_execpath，再看 node 可执行文件旁边
 * （Windows：<node 目录>/node_modules/npm；Linux、macOS：<前缀>/lib/node_modules/npm）。
 */
export function findNpmCli(env: NodeJS.ProcessEnv = process.env, execPath = process.execPath): string | undefined {
  const fromEnv = env.npm_execpath;
  if (fromEnv !== undefined && /^npm-cli\.c?js$/.test(path.basename(fromEnv)) && fs.existsSync(fromEnv)) return fromEnv;
  const dir = path.dirname(execPath);
  const candidates = [
    path.join(dir, "node_modules", "npm", "bin", "npm-cli.js"),
    path.join(dir, "..", "lib", "node_modules", "npm", "bin", "npm-cli.js"),
  ];
  return candidates.find((c) => fs.existsSync(c));
}

/** 新克隆里的环境：去掉外层 npm run 带进来的 npm_* 变量，像新开的终端一样 */
function freshEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (/^npm_/i.test(k) || /^INIT_CWD$/i.test(k)) continue;
    env[k] = v;
  }
  return env;
}

// 正在运行的 npm：Ctrl+C 时先杀掉它，再删临时目录
let current: ChildProcess | undefined;

function runNpm(args: string[], cwd: string, out: Writer, npmCli: string | undefined): Promise<number | null> {
  // 找不到 npm-cli.js 时退回到 PATH 里的 npm；Windows 上 npm 是 npm.cmd，只能经过 shell 启动
  const [command, argv, shell] =
    npmCli !== undefined ? [process.execPath, [npmCli, ...args], false] : ["npm", args, process.platform === "win32"];
  return new Promise((resolve) => {
    const child = spawn(command, argv, { cwd, env: freshEnv(), stdio: ["ignore", "pipe", "pipe"], shell, ...treeSpawnOptions });
    current = child;
    child.stdout.on("data", (c: Buffer) => out.write(c.toString("utf8")));
    child.stderr.on("data", (c: Buffer) => out.write(c.toString("utf8")));
    child.on("error", (e) => {
      out.write(`无法启动 npm：${e.message}\n`);
      resolve(null);
    });
    child.on("close", (code) => {
      current = undefined;
      resolve(code);
    });
  });
}

export interface FreshCheckOptions {
  root: string;
  out: Writer;
  color?: boolean;
  /** 保留克隆目录（排查用） */
  keep?: boolean;
  npmCli?: string;
}

export interface CommandVerdict {
  line: string;
  ok: boolean;
  detail: string;
  seconds: number;
}

/** `npm run fresh-check`：把仓库克隆到临时目录，在那里逐条执行 README 快速开始里的命令 */
export async function runFreshCheck(options: FreshCheckOptions): Promise<{ code: number; verdicts: CommandVerdict[]; cloneDir: string }> {
  const p = paint(options.color ?? false);
  const out = options.out;
  const npmCli = options.npmCli ?? findNpmCli();
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "mah-fresh-"));
  const cloneDir = path.join(tmp, "repo");
  const verdicts: CommandVerdict[] = [];
  const onInterrupt = (): void => {
    if (current !== undefined) killTree(current, "SIGKILL");
    if (!options.keep) fs.rmSync(tmp, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
    out.write(`\n已中断${options.keep ? "" : "，临时目录已删除"}。\n`);
    process.exit(130);
  };
  process.on("SIGINT", onInterrupt);
  try {
    const dirty = spawnSync("git", ["status", "--porcelain"], { cwd: options.root, encoding: "utf8", windowsHide: true });
    if (dirty.status === 0 && dirty.stdout.trim() !== "") {
      out.write(p.dim("注意：工作区有未提交的改动；克隆只包含已提交的内容，检查的是 HEAD。") + "\n");
    }
    out.write(`克隆 ${options.root} → ${cloneDir}\n`);
    const clone = spawnSync("git", ["clone", "--quiet", options.root, cloneDir], { encoding: "utf8", windowsHide: true });
    if (clone.status !== 0) {
      out.write(p.red(`✗ git clone 失败：${(clone.stderr || clone.error?.message || "").trim()}`) + "\n");
      return { code: 1, verdicts, cloneDir };
    }
    const readmeFile = path.join(cloneDir, "README.md");
    if (!fs.existsSync(readmeFile)) {
      const uncommitted = fs.existsSync(path.join(options.root, "README.md")) ? "（工作区里有，但还没有提交）" : "";
      out.write(p.red(`✗ 克隆里没有 README.md${uncommitted}，不知道该执行哪些命令`) + "\n");
      return { code: 1, verdicts, cloneDir };
    }
    let commands: QuickStartCommand[];
    try {
      commands = parseQuickStart(fs.readFileSync(readmeFile, "utf8"));
    } catch (error) {
      out.write(p.red(`✗ ${(error as Error).message}`) + "\n");
      return { code: 1, verdicts, cloneDir };
    }
    out.write(`README 的快速开始：${commands.map((c) => c.line).join("  ／  ")}\n`);
    out.write(p.dim(npmCli !== undefined ? `npm：${process.execPath} ${npmCli}` : "npm：PATH 里的 npm") + "\n");

    for (const command of commands) {
      out.write(`\n${p.bold(`▶ ${command.line}`)}\n`);
      const started = performance.now();
      let detail = "";
      for (const args of command.npmArgs) {
        const code = await runNpm(args, cloneDir, out, npmCli);
        if (code !== 0) {
          detail = `npm ${args.join(" ")} ${code === null ? "没能启动" : `退出码 ${code}`}`;
          break;
        }
      }
      const verdict: CommandVerdict = { line: command.line, ok: detail === "", detail, seconds: (performance.now() - started) / 1000 };
      verdicts.push(verdict);
      out.write(formatCommandVerdict(verdict, options.color ?? false));
    }
  } finally {
    process.off("SIGINT", onInterrupt);
    if (options.keep) out.write(`\n克隆保留在 ${cloneDir}\n`);
    else fs.rmSync(tmp, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
  }

  const passed = verdicts.filter((v) => v.ok).length;
  out.write(`\n${p.bold("新克隆检查")}：\n${verdicts.map((v) => formatCommandVerdict(v, options.color ?? false)).join("")}`);
  out.write(`${passed}/${verdicts.length} 条命令通过${options.keep ? "" : "；临时目录已删除"}\n`);
  return { code: verdicts.length > 0 && passed === verdicts.length ? 0 : 1, verdicts, cloneDir };
}

export function formatCommandVerdict(v: CommandVerdict, color = false): string {
  const p = paint(color);
  const time = `${v.seconds.toFixed(1)} s`;
  return v.ok ? `${p.green("✓")} ${v.line}（${time}）\n` : `${p.red("✗")} ${v.line}（${v.detail}，${time}）\n`;
}
