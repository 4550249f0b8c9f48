import { defineConfig } from "vitest/config";

// CI 另外要一份 JSON 报告来数跳过的测试（../.ci/check-skips.mjs）：由环境变量 VITEST_JSON_REPORT 给出路径
const jsonReport = process.env.VITEST_JSON_REPORT;

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    ...(jsonReport ? { reporters: ["default", "json"], outputFile: { json: jsonReport } } : {}),
    // 还原源码只做一次：各测试文件并行跑之前先确保 .pi-src 就绪。
    globalSetup: ["test/global-setup.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
