// 用法：npm run docs:check   检查 docs/ 里的代码引用、行号引用与 golden 输出块；查到的数目低于下限（scripts/lib/floors.ts）也算失败
import { runDocsCheck } from "./lib/docs-checker.ts";
import { repoRoot } from "./lib/paths.ts";

process.exitCode = runDocsCheck(repoRoot, process.stdout);
