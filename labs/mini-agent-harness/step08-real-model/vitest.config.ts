import fs from "node:fs";
import { fileURLToPath } from "node:url";
import { configDefaults, defineConfig } from "vitest/config";

import { providerDir, testsImportingProvider } from "./test/helpers/provider-dir.js";

// toThrow(文字|正则) 只认 Error：抛出 undefined 之类不算通过。这份 setup 是仓库里所有配置共用的；
// 本目录被单独复制出去时它不在，toThrow 就按 vitest 原本的规则比较，并说一行
const strictToThrow = fileURLToPath(new URL("../../../scripts/vitest/strict-to-throw.ts", import.meta.url));
const inRepo = fs.existsSync(strictToThrow);
if (!inRepo) console.warn("（本目录不在仓库里：跳过仓库的 toThrow 严格检查 scripts/vitest/strict-to-throw.ts）");

// 本地脚本服务器是仓库里的工具包（labs/scripted-provider/），不复制进步骤。找不到它时：import 它的测试文件不收，
// 起 CLI、跑 demo 的测试（写着 it.skipIf(withoutProvider)）跳过，其余照常，并说一行
const needProvider = providerDir === undefined ? testsImportingProvider(fileURLToPath(new URL("test", import.meta.url))) : [];
if (providerDir === undefined) {
  console.warn(
    `（找不到本地脚本服务器 scripted-provider：跳过用到它的 ${needProvider.length} 个测试文件与起 CLI、跑 demo 的测试；` +
      "要全部运行，先 npm install -D <仓库目录>/labs/scripted-provider）",
  );
}

// 在步骤目录里单独运行 npm test 时用这份配置；仓库根目录的配置会一次跑完所有步骤。
export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    exclude: [...configDefaults.exclude, ...needProvider],
    setupFiles: inRepo ? [strictToThrow] : [],
    // 单个测试的上限只在真卡住时起作用：给得很宽，机器很忙（别的程序占满 CPU）时也不误报
    testTimeout: 120_000,
    hookTimeout: 120_000, // beforeAll 里也会跑 demo、起进程：同样只防真卡住（默认 10 秒太紧）
    pool: "forks",
    // 大多数测试在等子进程（真实的 CLI、demo、本地 HTTP 服务），CPU 常常是闲的：
    // 默认只开「核数 - 1」个 worker（两核机器上是 1 个），文件一个接一个地跑；开 3 个，等待可以重叠。
    // 不开 4 个：两核机器上第 4 个 worker 不再缩短总时间，却要多付一份启动与导入的 CPU（step09 约 1.5 秒）。
    maxWorkers: 3,
    // 测试文件之间复用 worker 进程，不为每个文件重新起一个：省下的 CPU 时间占整套测试的两成。
    // 各文件自己收拾现场（临时目录、服务器、假时钟都在 afterEach / onTestFinished 里还原）。
    isolate: false,
    // 转换好的模块（TypeScript 去掉类型之后）按内容缓存在 node_modules/.experimental-vitest-cache/，下一次 npm test 直接读：
    // 一步约省 1 秒 CPU（step06、08、09 交替量过）。缓存的键是文件内容连同 vitest 的版本与配置，改了哪个文件只重新转换哪个
    // Windows 上别的进程开着的文件不能被改名覆盖：几个 worker 同时写同一份缓存可能失败，那里不开
    experimental: { fsModuleCache: process.platform !== "win32" },
  },
});
