// npm run diff 的命令行逻辑（scripts/step-diff.ts 调用它；测试在进程内调用，省掉每次起 tsx）
import { repoRoot } from "./paths.ts";
import { compareSteps, formatStepDiff } from "./step-diff.ts";
import { StepNotFoundError, listSteps, resolveStep } from "./steps.ts";

export const USAGE = `用法：npm run diff -- [<旧步骤>] <新步骤> [--stat] [--src] [--worktree]
  npm run diff -- 07            step06 → step07（只写一个步骤，就和它的上一步比）
  npm run diff -- 06 07         同上，两个步骤都写明
  --stat                        只列文件与增删行数（各组合计），不打印 diff
  --src                         只看 src/（这一章的代码）
  --worktree                    比较目录里现有的文件（包括你自己加的）；默认比较 git 里提交的版本
  步骤可写编号（7 或 07）或完整目录名。文件按新步骤 README 的「阅读顺序」分组打印（本章的想法在前）；没写的按 src/、其他文件、测试。
`;

const FLAGS = new Set(["--stat", "--src", "--worktree"]);

export interface DiffIo {
  out: { write(text: string): unknown };
  err: { write(text: string): unknown };
  color: boolean;
}

/** npm run diff 的全部逻辑（命令行只是把 argv 和标准输出交给它）：返回退出码 */
export function runStepDiff(argv: string[], io: DiffIo, root: string = repoRoot): number {
  const flags = new Set(argv.filter((a) => a.startsWith("--")));
  const steps = argv.filter((a) => !a.startsWith("--"));
  const unknown = [...flags].filter((f) => !FLAGS.has(f));
  if (unknown.length > 0 || steps.length < 1 || steps.length > 2) {
    if (unknown.length > 0) io.err.write(`不认识的参数：${unknown.join(" ")}\n`);
    io.err.write(USAGE);
    return 2;
  }
  try {
    const to = resolveStep(steps.at(-1) ?? "", root);
    let from: string;
    if (steps.length === 2) {
      from = resolveStep(steps[0] ?? "", root);
    } else {
      const all = listSteps(root);
      const previous = all[all.indexOf(to) - 1];
      if (previous === undefined) {
        io.err.write(`${to} 是第一步，没有上一步可比。\n\n${USAGE}`);
        return 2;
      }
      from = previous;
    }
    const comparison = compareSteps(root, from, to, { worktree: flags.has("--worktree") });
    io.out.write(formatStepDiff(comparison, { color: io.color, stat: flags.has("--stat"), srcOnly: flags.has("--src") }));
    return 0;
  } catch (error) {
    if (error instanceof StepNotFoundError) {
      io.err.write(`${error.message}\n\n${USAGE}`);
      return 2;
    }
    throw error;
  }
}

