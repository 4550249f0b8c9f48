// 用法：npm run fresh-check [-- --keep]
// 把仓库（已提交的内容）克隆到临时目录，在那里逐条执行 README.md 快速开始里的命令，
// 就像一个刚 git clone 的读者那样；每条命令给出 ✓/✗，最后删掉临时目录。
import { shouldColor } from "./lib/color.ts";
import { runFreshCheck } from "./lib/fresh-check.ts";
import { repoRoot } from "./lib/paths.ts";

const args = process.argv.slice(2);
const unknown = args.filter((a) => a !== "--keep");
if (unknown.length > 0) {
  process.stderr.write(`不认识的参数：${unknown.join(" ")}\n用法：npm run fresh-check [-- --keep]   （--keep：保留克隆目录）\n`);
  process.exit(2);
}

const { code } = await runFreshCheck({ root: repoRoot, out: process.stdout, color: shouldColor(process.stdout), keep: args.includes("--keep") });
process.exitCode = code;
