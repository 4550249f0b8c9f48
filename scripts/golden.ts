// 用法：
//   npm run demo                  跑所有步骤的 demo，与 golden 比较
//   npm run demo -- 7             实时运行步骤 07 的 demo，再给结论
//   npm run golden:update -- 7    重新生成步骤 07 的 expected-output.txt
import { exitQuietlyWhenOutputCloses } from "./lib/closed-output.ts";
import { shouldColor } from "./lib/color.ts";
import { FLOORS } from "./lib/floors.ts";
import { runAllDemos, runOneDemo, updateGolden, type GoldenOptions } from "./lib/golden-runner.ts";
import { repoRoot } from "./lib/paths.ts";
import { killActiveDemos } from "./lib/run-demo.ts";
import { StepNotFoundError } from "./lib/steps.ts";

const USAGE = `用法：
  npm run demo                  运行所有步骤的 demo 并与 expected-output.txt 比较
  npm run demo -- <步骤>        实时运行一个步骤的 demo，再给出结论（步骤可写 7、07 或完整目录名）
  npm run golden:update -- <步骤>  重新生成该步骤的 expected-output.txt
环境变量 DEMO_TIMEOUT_MS 可修改单个 demo 的超时（默认 60000）。
`;

// 用户按 Ctrl+C：先把还在跑的 demo 进程树杀掉，再退出
process.on("SIGINT", () => {
  killActiveDemos();
  process.exit(130);
});
exitQuietlyWhenOutputCloses(killActiveDemos); // | head -1 关掉了管道：不打印 EPIPE 的堆栈

async function main(argv: string[]): Promise<number> {
  const [command, stepArg, ...rest] = argv;
  const options: GoldenOptions = {
    root: repoRoot,
    out: process.stdout,
    err: process.stderr,
    color: shouldColor(process.stdout),
  };
  if (rest.length > 0) {
    process.stderr.write(`多余的参数：${rest.join(" ")}\n\n${USAGE}`);
    return 2;
  }
  if (command === "demo") {
    return stepArg === undefined ? runAllDemos({ ...options, minSteps: FLOORS.goldenSteps }) : runOneDemo(stepArg, options);
  }
  if (command === "update" && stepArg !== undefined) {
    return updateGolden(stepArg, options);
  }
  process.stderr.write(command === "update" ? `golden:update 需要指定一个步骤。\n\n${USAGE}` : USAGE);
  return 2;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    if (error instanceof StepNotFoundError) {
      process.stderr.write(`${error.message}\n`);
      process.exitCode = 2;
      return;
    }
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  },
);
