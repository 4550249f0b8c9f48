import { defineConfig } from "vitest/config";

// 在 labs/session-viewer 里单独运行 npm test 时用这份配置；根目录的配置会把这里的测试一起跑。
export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // toThrow(文字|正则) 只认 Error：抛出 undefined 之类不算通过（scripts/vitest/strict-to-throw.ts）
    setupFiles: ["../../scripts/vitest/strict-to-throw.ts"],
    testTimeout: 60_000,
    pool: "forks",
  },
});
