import { defineConfig } from "vitest/config";
import { OncePerCode } from "./scripts/vitest/once-per-code.ts";
import ShortReporter from "./scripts/vitest/short-reporter.ts";

// 输出：每个步骤或包一行，失败的测试打印全部细节（scripts/vitest/short-reporter.ts）。
// 想看每个测试的名字：npm test -- --reporter=default。
// CI 另外要一份 JSON 报告来数跳过的测试（.ci/check-skips.mjs）：由环境变量 VITEST_JSON_REPORT 给出路径。
const jsonReport = process.env.VITEST_JSON_REPORT;

// 测试文件连同它导入的全部文件都与前一步的副本逐字节相同、又不从自己的位置去找文件（import.meta 之类）时，
// 根目录只跑最早那一步的一份：scripts/vitest/once-per-code.ts。各步骤自己的 npm test 不用这份配置，仍然全跑。
const oncePerCode = new OncePerCode();

// 根目录一次跑完：各步骤自己的测试、本地脚本服务器的测试、仓库脚本的测试、练习参考答案
export default defineConfig({
  test: {
    include: [
      "labs/mini-agent-harness/*/test/**/*.test.ts",
      "labs/session-viewer/test/**/*.test.ts",
      "labs/scripted-provider/test/**/*.test.ts",
      "scripts/test/**/*.test.ts",
      "solutions/**/*.test.ts",
    ],
    exclude: ["**/node_modules/**", "**/.git/**"],
    // toThrow(文字|正则) 只认 Error：抛出 undefined 之类不算通过（scripts/vitest/strict-to-throw.ts）
    setupFiles: ["./scripts/vitest/strict-to-throw.ts"],
    sequence: { sequencer: oncePerCode.sequencer() },
    reporters: jsonReport ? [new ShortReporter({ oncePerCode }), "json"] : [new ShortReporter({ oncePerCode })],
    ...(jsonReport ? { outputFile: { json: jsonReport } } : {}),
    // 单个测试的上限只在真卡住时起作用：给得很宽，机器很忙（别的程序占满 CPU）时也不误报
    testTimeout: 120_000,
    hookTimeout: 120_000, // beforeAll 里也会跑 demo、起进程：同样只防真卡住（默认 10 秒太紧）
    // 测试会起子进程跑 demo：worker 用进程（forks）而不是线程
    pool: "forks",
    // 大多数测试在等子进程（真实的 CLI、demo、本地 HTTP 服务），CPU 并不忙：
    // 两核机器上开 4 个 worker，整套测试的墙钟时间差不多减半。
    maxWorkers: 4,
    // 测试文件之间复用 worker 进程，不为每个文件重新起一个：省下约两成 CPU 时间。
    // 各文件自己收拾现场（临时目录、服务器、假时钟都在 afterEach / onTestFinished 里还原）。
    isolate: false,
    // 转换好的模块（TypeScript 去掉类型之后）按内容缓存在 node_modules/.experimental-vitest-cache/，下一次 npm test 直接读：
    // 一步约省 1 秒 CPU（step06、08、09 交替量过）。缓存的键是文件内容连同 vitest 的版本与配置，改了哪个文件只重新转换哪个
    // Windows 上别的进程开着的文件不能被改名覆盖：几个 worker 同时写同一份缓存可能失败，那里不开
    experimental: { fsModuleCache: process.platform !== "win32" },
  },
});
