// 用法：npm run diff -- 07          看 step07 比 step06 改了什么（写一个步骤 = 它和上一步比）
//       npm run diff -- 06 07 --stat  只看每个文件的增删行数与合计
import { exitQuietlyWhenOutputCloses } from "./lib/closed-output.ts";
import { shouldColor } from "./lib/color.ts";
import { runStepDiff } from "./lib/step-diff-cli.ts";

exitQuietlyWhenOutputCloses(); // npm run diff -- 08 09 | head：不打印 EPIPE 的堆栈

process.exitCode = runStepDiff(process.argv.slice(2), { out: process.stdout, err: process.stderr, color: shouldColor(process.stdout) });
