import { defineConfig } from "vitest/config";

// 在本目录里单独运行 npm test 时用这份配置；仓库根目录的配置会把它与各步骤一起跑完。
export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // toThrow(文字|正则) 只认 Error：抛出 undefined 之类不算通过（scripts/vitest/strict-to-throw.ts）
    setupFiles: ["../../scripts/vitest/strict-to-throw.ts"],
    testTimeout: 30_000,
    pool: "forks",
  },
});
