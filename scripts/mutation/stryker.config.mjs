// @ts-check
// StrykerJS 配置：变异第 09 步的 src/，用第 09 步自己的测试去杀变异体。
// 由 scripts/mutation/run.ts（npm run mutation）加载；路径都相对于仓库根目录（Stryker 的工作目录）。
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
const config = {
  testRunner: "vitest",
  plugins: ["@stryker-mutator/vitest-runner", "./scripts/mutation/survivors-reporter.mjs"],
  vitest: { configFile: "scripts/mutation/vitest.config.ts", related: true },
  // 三个入口文件除外：main.ts（npm start）、demo.ts（npm run demo）、provider-cli.ts（npm run provider）
  // 只在子进程里运行（CLI、golden 测试），而 vitest-runner 只看得见测试进程里的变异体——
  // 它们的变异体全是「没有测试执行到」，量出来的不是测试好不好，而是测试怎么起进程。
  // 它们由 golden 与命令行测试逐字比对把关（见 scripts/mutation/README.md）。
  mutate: [
    "labs/mini-agent-harness/step09-retry-timeout/src/**/*.ts",
    "!labs/mini-agent-harness/step09-retry-timeout/src/main.ts",
    "!labs/mini-agent-harness/step09-retry-timeout/src/demo.ts",
    "!labs/mini-agent-harness/step09-retry-timeout/src/provider-cli.ts",
  ],
  // 每个测试各自记下它执行到了哪些变异体：一个变异体只重跑碰得到它的那几个测试
  coverageAnalysis: "perTest",
  // 两核机器：两个 worker 已经把它占满
  concurrency: 2,
  // 沙箱里只需要第 09 步和它的测试用到的本地脚本服务器；其余目录不复制
  ignorePatterns: ["/docs", "/research", "/solutions", "/labs/session-viewer", "/labs/mini-agent-harness/step0[1-8]-*", "/scripts/test", "/scripts/bench"],
  tempDirName: ".stryker-tmp",
  // survivors：边跑边把存活者写进 reports/mutation/survivors.txt（见 survivors-reporter.mjs）
  reporters: ["html", "json", "progress", "survivors"],
  htmlReporter: { fileName: "reports/mutation/index.html" },
  jsonReporter: { fileName: "reports/mutation/mutation.json" },
  // 机器很忙时测试会变慢：超时给宽些，免得把「慢」误算成「卡住」
  timeoutMS: 8_000,
  timeoutFactor: 1.5,
  dryRunTimeoutMinutes: 20,
  thresholds: { high: 90, low: 85, break: null },
};

export default config;
