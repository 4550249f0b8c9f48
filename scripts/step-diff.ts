// 用法：npm run diff -- 07          看 step07 比 step06 改了什么（写一个步骤 = 它和上一步比）
//       npm run diff -- 06 07 --stat  只看每个文件的增删行数与合计
import { shouldColor } from "./lib/color.ts";
import { repoRoot } from "./lib/paths.ts";
import { compareSteps, formatStepDiff } from "./lib/step-diff.ts";
import { StepNotFoundError, listSteps, resolveStep } from "./lib/steps.ts";

const USAGE = `用法：npm run diff -- [<旧步骤>] <新步骤> [--stat] [--src] [--worktree]
  npm run diff -- 07            step06 → step07（只写一个步骤，就和它的上一步比）
  npm run diff -- 06 07         同上，两个步骤都写明
  --stat                        只列文件与增删行数（各组合计），不打印 diff
  --src                         只看 src/（这一章的代码）
  --worktree                    比较目录里现有的文件（包括你自己加的）；默认比较 git 里提交的版本
  步骤可写编号（7 或 07）或完整目录名。顺序：src/ 在前，其他文件其次，测试最后。
`;

const FLAGS = new Set(["--stat", "--src", "--worktree"]);

function main(argv: string[]): number {
  const flags = new Set(argv.filter((a) => a.startsWith("--")));
  const steps = argv.filter((a) => !a.startsWith("--"));
  const unknown = [...flags].filter((f) => !FLAGS.has(f));
  if (unknown.length > 0 || steps.length < 1 || steps.length > 2) {
    if (unknown.length > 0) process.stderr.write(`不认识的参数：${unknown.join(" ")}\n`);
    process.stderr.write(USAGE);
    return 2;
  }
  try {
    const to = resolveStep(steps.at(-1) ?? "", repoRoot);
    let from: string;
    if (steps.length === 2) {
      from = resolveStep(steps[0] ?? "", repoRoot);
    } else {
      const all = listSteps(repoRoot);
      const previous = all[all.indexOf(to) - 1];
      if (previous === undefined) {
        process.stderr.write(`${to} 是第一步，没有上一步可比。\n\n${USAGE}`);
        return 2;
      }
      from = previous;
    }
    const comparison = compareSteps(repoRoot, from, to, { worktree: flags.has("--worktree") });
    process.stdout.write(formatStepDiff(comparison, { color: shouldColor(process.stdout), stat: flags.has("--stat"), srcOnly: flags.has("--src") }));
    return 0;
  } catch (error) {
    if (error instanceof StepNotFoundError) {
      process.stderr.write(`${error.message}\n\n${USAGE}`);
      return 2;
    }
    throw error;
  }
}

process.exitCode = main(process.argv.slice(2));
