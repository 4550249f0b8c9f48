import path from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig, mergeConfig } from "vitest/config";

import stepConfig from "../../labs/mini-agent-harness/step09-retry-timeout/vitest.config.ts";

// 变异测试用的就是第 09 步自己的测试配置（include、超时……），只把根目录指到那个步骤：
// Stryker 从仓库根目录启动（测试要用到旁边的 labs/scripted-provider），
// 这里的 root 让 test/**/*.test.ts 与在步骤目录里运行 npm test 时指的是同一批文件。
// pool、worker 数量由 Stryker 的 vitest-runner 自己决定（它固定用一个线程 worker）。
const stepRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../labs/mini-agent-harness/step09-retry-timeout");

export default mergeConfig(stepConfig, defineConfig({ root: stepRoot }));
