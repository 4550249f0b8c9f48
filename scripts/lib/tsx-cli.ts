import { createRequire } from "node:module";

// tsx 装在仓库根的 node_modules 里；用 require.resolve 找到它的 CLI 入口，
// 再用 process.execPath 启动，避免依赖 shell 或 npx（Windows 上也一样能跑）
export function resolveTsxCli(): string {
  try {
    return createRequire(import.meta.url).resolve("tsx/cli");
  } catch {
    throw new Error("找不到 tsx（tsx/cli）。请先在仓库根目录运行 npm ci。");
  }
}
