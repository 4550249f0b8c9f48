import { defineConfig } from "vitest/config";

// 根目录一次跑完：各步骤自己的测试、仓库脚本的测试、练习参考答案
export default defineConfig({
  test: {
    include: [
      "labs/mini-agent-harness/*/test/**/*.test.ts",
      "scripts/test/**/*.test.ts",
      "solutions/**/*.test.ts",
    ],
    exclude: ["**/node_modules/**", "**/.git/**"],
    testTimeout: 30_000,
    // 测试会起子进程跑 demo，用进程池隔离更稳
    pool: "forks",
  },
});
