import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";

// tsx 装在仓库根的 node_modules 里；用 require.resolve 找到它的 CLI 入口，
// 再用 process.execPath 启动，避免依赖 shell 或 npx（Windows 上也一样能跑）
export function resolveTsxCli(): string {
  try {
    return createRequire(import.meta.url).resolve("tsx/cli");
  } catch {
    throw new Error("找不到 tsx（tsx/cli）。请先在仓库根目录运行 npm ci。");
  }
}

/**
 * tsx 的加载器（包的主入口），给 node --import 用：脚本自己起的 node 子进程用它直接运行 .ts，
 * 比经过 tsx 命令行少起一个进程（命令行只是再起一个带着这个加载器的 node，外加转发信号）。
 */
export function resolveTsxLoader(): string {
  try {
    return pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
  } catch {
    throw new Error("找不到 tsx。请先在仓库根目录运行 npm ci。");
  }
}
