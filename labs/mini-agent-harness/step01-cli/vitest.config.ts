import { defineConfig } from "vitest/config";

// 在步骤目录里单独运行 npm test 时用这份配置；仓库根目录的配置会一次跑完所有步骤。
export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // 单个测试的上限只在真卡住时起作用：给得很宽，机器很忙（别的程序占满 CPU）时也不误报
    testTimeout: 120_000,
    pool: "forks",
  },
});
