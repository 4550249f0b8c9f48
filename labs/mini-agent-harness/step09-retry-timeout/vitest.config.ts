import { defineConfig } from "vitest/config";

// 在步骤目录里单独运行 npm test 时用这份配置；仓库根目录的配置会一次跑完所有步骤。
export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    pool: "forks",
  },
});
