// 用法：
//   npm run stress                 每个核一个忙循环占满 CPU，同时把每个步骤的 demo 连跑 20 次并与 golden 比较
//   npm run stress -- 50           连跑 50 次
//   npm run stress -- 20 --load 4  指定忙循环个数（默认 os.availableParallelism()）
//   npm run stress -- --tests 3    不跑 demo，改为同一时刻起 3 份完整的 npm test（外加忙循环），报告 N/N
import { shouldColor } from "./lib/color.ts";
import { repoRoot } from "./lib/paths.ts";
import { killActiveDemos } from "./lib/run-demo.ts";
import { DEFAULT_RUNS, runStress } from "./lib/stress.ts";
import { killActiveTestRuns, runTestStress } from "./lib/stress-tests.ts";

const USAGE = `用法：npm run stress -- [次数] [--load 忙循环个数]
       npm run stress -- --tests 份数 [--load 忙循环个数]
  次数默认 ${DEFAULT_RUNS}；忙循环个数默认 os.availableParallelism()。
  每个步骤的 demo 一次接一次地跑，同时压 2 个步骤；每次都与 expected-output.txt 比较。
  全部步骤都是 N/N 时退出码为 0，否则为 1。环境变量 DEMO_TIMEOUT_MS 可修改单次 demo 的超时。
  --tests N：不跑 demo，同一时刻起 N 份完整的 npm test（外加忙循环），全部通过（N/N）时退出码为 0。
`;

function positiveInt(text: string | undefined): number | undefined {
  return text !== undefined && /^\d+$/.test(text) && Number(text) > 0 ? Number(text) : undefined;
}

interface Args {
  runs: number;
  load?: number;
  /** 给了 --tests：同时跑几份 npm test */
  tests?: number;
}

function parseArgs(argv: string[]): Args | string {
  let runs: number | undefined;
  let load: number | undefined;
  let tests: number | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--tests") {
      const n = argv[++i];
      tests = positiveInt(n);
      if (tests === undefined) return `--tests 需要一个正整数，收到 ${n ?? "（空）"}`;
    } else if (arg === "--load") {
      const n = argv[++i];
      load = n !== undefined && /^\d+$/.test(n) ? Number(n) : undefined;
      if (load === undefined) return `--load 需要一个非负整数，收到 ${n ?? "（空）"}`;
    } else if (runs === undefined && positiveInt(arg) !== undefined) {
      runs = positiveInt(arg);
    } else {
      return `不认识的参数：${arg}`;
    }
  }
  if (tests !== undefined && runs !== undefined) return "--tests 与 demo 的次数不能一起给：一次只压一样";
  return { runs: runs ?? DEFAULT_RUNS, ...(load === undefined ? {} : { load }), ...(tests === undefined ? {} : { tests }) };
}

if (process.argv.includes("--help") || process.argv.includes("-h")) {
  process.stdout.write(USAGE);
  process.exit(0);
}
const parsed = parseArgs(process.argv.slice(2));
if (typeof parsed === "string") {
  process.stderr.write(`${parsed}\n\n${USAGE}`);
  process.exit(2);
}

// Ctrl+C：杀掉正在跑的 demo；忙循环由 cpu-load 注册的 exit 钩子在退出前杀掉
process.on("SIGINT", () => {
  killActiveDemos();
  killActiveTestRuns();
  process.stderr.write("\n已中断：demo、npm test 与忙循环进程已清理。\n");
  process.exit(130);
});

// 进度只在终端上显示（写到 stderr）；输出重定向到文件或管道时不出现，结果里也就没有控制字符
const progress = process.stderr.isTTY && process.stdout.isTTY
  ? (done: number, total: number) => process.stderr.write(`\r已跑 ${done}/${total} 次 demo…${done === total ? "\r\u001b[K" : ""}`)
  : undefined;

try {
  if (parsed.tests !== undefined) {
    const { code } = await runTestStress({
      root: repoRoot,
      copies: parsed.tests,
      out: process.stdout,
      color: shouldColor(process.stdout),
      ...(parsed.load === undefined ? {} : { load: parsed.load }),
    });
    process.exit(code);
  }
  const { code } = await runStress({
    root: repoRoot,
    runs: parsed.runs,
    out: {
      // 进度行与结果行共用一个终端：先清掉进度行再写结果
      write: (text: string) => process.stdout.write(progress === undefined ? text : `\r\u001b[K${text}`),
    },
    color: shouldColor(process.stdout),
    ...(parsed.load === undefined ? {} : { load: parsed.load }),
    ...(progress === undefined ? {} : { onProgress: progress }),
  });
  process.exitCode = code;
} catch (error) {
  killActiveDemos();
  killActiveTestRuns();
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
}
