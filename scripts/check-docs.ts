// 用法：npm run docs:check   检查 docs/ 里的代码引用、行号引用与 golden 输出块
import { checkDocsWithStats } from "./lib/docs-checker.ts";
import { repoRoot } from "./lib/paths.ts";

const { problems, stats } = checkDocsWithStats(repoRoot);
if (problems.length > 0) {
  for (const p of problems) process.stdout.write(`${p.file}:${p.line}: ${p.message}\n`);
  process.stdout.write(`\n文档检查失败：${problems.length} 个问题。\n`);
  process.exitCode = 1;
} else {
  process.stdout.write(`文档检查通过：${stats.chapters} 章，${stats.citations} 处代码引用，${stats.transcripts} 段输出\n`);
}
