// 用法：npm run check --prefix research [-- <文件或目录> …]
// 不给参数时检查 ../docs/**/*.md 与 research/**/*.md（不含测试 fixture）。
// 每个问题打印成「文件:行: 说明」；有问题时退出码 1。
import path from "node:path";
import {
  checkMarkdownFiles,
  citationFloorProblems,
  createPinnedResolver,
  defaultMarkdownFiles,
  findMarkdownFiles,
  formatProblem,
} from "./lib/pi-citations.ts";

const args = process.argv.slice(2);
if (args.includes("--help") || args.includes("-h")) {
  console.log("用法：tsx scripts/check-pi-citations.ts [文件或目录 …]");
  process.exit(0);
}

try {
  const resolver = createPinnedResolver();
  const files = args.length > 0 ? args.flatMap((a) => findMarkdownFiles(a)) : defaultMarkdownFiles();
  const result = checkMarkdownFiles(files, resolver, (f) => path.relative(process.cwd(), f) || f);
  for (const p of result.problems) console.log(formatProblem(p));
  const pins = Object.entries(resolver.pins)
    .map(([name, v]) => `${name}@${v}`)
    .join("、");
  console.log(
    `检查了 ${result.files.length} 个 Markdown 文件里的 ${result.citations.length} 条 Pi 引用（${pins}）：` +
      (result.problems.length === 0 ? "全部成立。" : `${result.problems.length} 个问题。`),
  );
  // 查全部时还要达到下限：什么也没查到不能算「全部成立」
  const low = args.length > 0 ? [] : citationFloorProblems(result);
  for (const line of low) console.log(`检查失败：${line}`);
  process.exit(result.problems.length === 0 && low.length === 0 ? 0 : 1);
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(2);
}
