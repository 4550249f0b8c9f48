import { defineConfig } from "vitest/config";

// 根目录一次跑完：各步骤自己的测试、本地脚本服务器的测试、仓库脚本的测试、练习参考答案
export default defineConfig({
  test: {
    include: [
      "labs/mini-agent-harness/*/test/**/*.test.ts",
      "labs/scripted-provider/test/**/*.test.ts",
      "scripts/test/**/*.test.ts",
      "solutions/**/*.test.ts",
    ],
    exclude: ["**/node_modules/**", "**/.git/**"],
    testTimeout: 30_000,
    // 测试会起子进程跑 demo，用进程池隔离更稳
    pool: "forks",
    // 大多数测试在等子进程（真实的 CLI、demo、本地 HTTP 服务），CPU 并不忙：
    // 两核机器上开 4 个 worker，整套测试的墙钟时间差不多减半。
    maxWorkers: 4,
  },
});
