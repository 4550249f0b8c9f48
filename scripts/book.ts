// 用法：npm run book        构建书站（需要时），在本机起一个静态服务器并打印网址
//       npm run book:build  只构建，写到 book/dist/（任何静态服务器都能发布，离线可用）
//       npm run book:test   构建一次，再用系统的 Chromium 逐页检查（见 book/README.md）
//
// 书站的依赖（VitePress、Mermaid、Pi 的三个包……）装在 book/ 自己的 node_modules 里，不是根目录的 workspace：
// 学习者 npm ci 时不下载它们。第一次运行这些命令时按 book/package-lock.json 装一次，并说一声。
import { spawnSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { bookEnv } from "./lib/book-env.ts";
import { repoRoot } from "./lib/paths.ts";
import { resolveTsxCli } from "./lib/tsx-cli.ts";

const BOOK = path.join(repoRoot, "book");
const STAMP = path.join(BOOK, "node_modules", ".book-lock.sha256");
const COMMANDS: Record<string, string> = { serve: "serve.ts", build: "build.ts", test: "browser-test.ts" };

function lockHash(): string {
  return crypto.createHash("sha256").update(fs.readFileSync(path.join(BOOK, "package-lock.json"))).digest("hex");
}

/** book/node_modules 不在、或装的不是现在这份锁文件：npm ci --prefix book */
function ensureInstalled(): void {
  const want = lockHash();
  if (fs.existsSync(STAMP) && fs.readFileSync(STAMP, "utf8").trim() === want) return;
  console.log("第一次使用书站（或 book/package-lock.json 变了）：正在安装 book/ 的依赖（npm ci --prefix book，约 520 MB、1–2 分钟，只装这一次）…");
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  const r = spawnSync(npm, ["ci", "--prefix", BOOK, "--no-audit", "--no-fund", "--loglevel=error"], { stdio: "inherit", shell: process.platform === "win32" });
  if (r.status !== 0) {
    console.error("安装 book/ 的依赖失败（见上面 npm 的输出）。可以手动再试：npm ci --prefix book");
    process.exit(r.status ?? 1);
  }
  fs.writeFileSync(STAMP, `${want}\n`);
}

const command = process.argv[2] ?? "serve";
const script = COMMANDS[command];
if (script === undefined) {
  console.error(`不认识的子命令：${command}（可用：${Object.keys(COMMANDS).join("、")}）`);
  process.exit(2);
}
ensureInstalled();
const r = spawnSync(process.execPath, [resolveTsxCli(), path.join(BOOK, "scripts", script), ...process.argv.slice(3)], { cwd: BOOK, stdio: "inherit", env: bookEnv() });
process.exit(r.status ?? 1);
