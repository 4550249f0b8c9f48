// 用法：npm run diff -- 06 07   看一个步骤到另一个步骤改了什么
import { shouldColor } from "./lib/color.ts";
import { repoRoot } from "./lib/paths.ts";
import { compareSteps, formatStepDiff } from "./lib/step-diff.ts";
import { StepNotFoundError, resolveStep } from "./lib/steps.ts";

const USAGE = `用法：npm run diff -- <旧步骤> <新步骤>
  例如：npm run diff -- 06 07
  步骤可写编号（7 或 07）或完整目录名；node_modules、.sessions、package-lock.json 不参与比较。
`;

function main(argv: string[]): number {
  if (argv.length !== 2) {
    process.stderr.write(USAGE);
    return 2;
  }
  try {
    const from = resolveStep(argv[0] ?? "", repoRoot);
    const to = resolveStep(argv[1] ?? "", repoRoot);
    process.stdout.write(formatStepDiff(compareSteps(repoRoot, from, to), shouldColor(process.stdout)));
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
