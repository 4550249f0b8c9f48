// 用法：npm run exercise -- 7 [--dir <步骤目录>]
// 检查第 8.5 章的练习（extensions/reverse.ts 与两条剧本规则），每项失败都给出提示。
import path from "node:path";

import { checkExercise07, formatResults } from "./lib/exercise-07.ts";
import { repoRoot } from "./lib/paths.ts";
import { resolveStep, StepNotFoundError, stepDir } from "./lib/steps.ts";

const USAGE = "用法：npm run exercise -- 7 [--dir <步骤目录>]\n目前有练习检查器的步骤：07（第 8.5 章：写你自己的扩展）。";

async function main(argv: string[]): Promise<number> {
  const [stepArg, ...rest] = argv;
  if (stepArg === undefined) {
    console.error(USAGE);
    return 2;
  }
  let dirOverride: string | undefined;
  if (rest[0] === "--dir" && rest[1] !== undefined && rest.length === 2) dirOverride = path.resolve(rest[1]);
  else if (rest.length > 0) {
    console.error(`多余的参数：${rest.join(" ")}\n${USAGE}`);
    return 2;
  }
  let step: string;
  try {
    step = resolveStep(stepArg, repoRoot);
  } catch (error) {
    if (error instanceof StepNotFoundError) {
      console.error(error.message);
      return 2;
    }
    throw error;
  }
  if (!step.startsWith("step07-")) {
    console.error(`步骤 ${step} 没有练习检查器。\n${USAGE}`);
    return 2;
  }
  const dir = dirOverride ?? stepDir(repoRoot, step);
  console.log(`检查 ${path.relative(repoRoot, dir) || dir} 里的练习：\n`);
  const results = await checkExercise07(dir);
  console.log(formatResults(results));
  return results.every((result) => result.ok) ? 0 : 1;
}

process.exitCode = await main(process.argv.slice(2));
