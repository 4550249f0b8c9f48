// 用法：npm run book        构建书站（输入变了才构建，一行说出是哪一种），在本机起一个静态服务器并打印网址
//       npm run book:build  只构建，写到 book/dist/（任何静态服务器都能发布，离线可用）
//       npm run book:test   构建一次，再用学习者的 Chrome、Edge 或 Chromium 逐页检查（见 book/README.md）
//
//       （tsx scripts/book.ts install 只装书站的依赖：CI 在 Windows 阶段之前用它）
//
// 书站的依赖（VitePress、Shiki……，Mermaid 与 Pi 的三个包只取要用的文件）装在 book/ 自己的 node_modules 里，
// 不是根目录的 workspace：学习者 npm ci 时不下载它们。第一次运行这些命令时装一次，说装什么、多大，并报进度
// （scripts/lib/book-install.ts）。
import { spawnSync } from "node:child_process";
import path from "node:path";
import { ensureBookInstalled } from "./lib/book-install.ts";
import { bookEnv } from "./lib/book-env.ts";
import { repoRoot } from "./lib/paths.ts";
import { resolveTsxCli } from "./lib/tsx-cli.ts";

const BOOK = path.join(repoRoot, "book");
const COMMANDS: Record<string, string | undefined> = { serve: "serve.ts", build: "build.ts", test: "browser-test.ts", install: undefined };

const command = process.argv[2] ?? "serve";
if (!Object.hasOwn(COMMANDS, command)) {
  console.error(`不认识的子命令：${command}（可用：${Object.keys(COMMANDS).join("、")}）`);
  process.exit(2);
}
const failed = await ensureBookInstalled(BOOK);
if (failed !== undefined) {
  console.error(`书站的依赖没装好：${failed}`);
  process.exit(1);
}
const script = COMMANDS[command];
if (script === undefined) process.exit(0);
const args = process.argv.slice(3);
// npm run book 而什么都没变：就在这个进程里发布上次的结果，不再另起一个 tsx 进程（省下一秒左右，网址更快出来）
const serving = command === "serve" ? await import("../book/scripts/lib/serve-book.ts") : undefined;
if (serving?.canServeLastBuild(args)) {
  await serving.serveBook(args);
} else {
  const r = spawnSync(process.execPath, [resolveTsxCli(), path.join(BOOK, "scripts", script), ...args], { cwd: BOOK, stdio: "inherit", env: bookEnv() });
  process.exit(r.status ?? 1);
}
