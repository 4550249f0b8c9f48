// 用法：npm run step-alone [-- 01 07 09] [--with-provider] [--keep]
// 把步骤目录复制到仓库外的临时目录，npm install 之后运行 npm start、npm run demo、npm test（以及 exercise、view），
// 每项给出 ✓/✗：步骤目录离开仓库也要能用，仓库里的便利工具不在时只说一行。不写步骤时检查全部步骤。
// 每一步都要真的 npm install（优先用 npm 缓存）并跑完那一步的测试，所以不在根目录的 npm test 里，CI 单独跑一个阶段。
import { shouldColor } from "./lib/color.ts";
import { repoRoot } from "./lib/paths.ts";
import { runStepAlone } from "./lib/step-alone.ts";
import { listSteps, resolveStep, StepNotFoundError } from "./lib/steps.ts";

const USAGE = "用法：npm run step-alone [-- 01 07 09] [--with-provider] [--keep]   （--with-provider：step08 起的步骤再链上本地脚本服务器跑一遍；--keep：保留临时目录）";
const args = process.argv.slice(2);
const flags = new Set(args.filter((a) => a.startsWith("--")));
const unknown = [...flags].filter((f) => f !== "--with-provider" && f !== "--keep");
if (unknown.length > 0) {
  process.stderr.write(`不认识的参数：${unknown.join(" ")}\n${USAGE}\n`);
  process.exit(2);
}
let steps: string[];
try {
  const named = args.filter((a) => !a.startsWith("--")).map((a) => resolveStep(a, repoRoot));
  steps = named.length > 0 ? named : listSteps(repoRoot);
} catch (error) {
  if (!(error instanceof StepNotFoundError)) throw error;
  process.stderr.write(`${error.message}\n`);
  process.exit(2);
}

process.exitCode = await runStepAlone({
  root: repoRoot,
  steps,
  out: process.stdout,
  color: shouldColor(process.stdout),
  withProvider: flags.has("--with-provider"),
  keep: flags.has("--keep"),
});
