// 用法：npm run sources --prefix research [-- --force]
// 从 node_modules 里钉住版本的 Pi 包的 .js.map 还原原始 TypeScript 源码到 research/.pi-src/。
import path from "node:path";
import { RESEARCH_DIR } from "./lib/pi-packages.ts";
import { ensurePiSources } from "./lib/source-maps.ts";

const args = process.argv.slice(2);
const unknown = args.filter((a) => a !== "--force");
if (unknown.length > 0) {
  console.error(`未知参数：${unknown.join(" ")}\n用法：tsx scripts/pi-sources.ts [--force]`);
  process.exit(2);
}

try {
  const entries = ensurePiSources({ force: args.includes("--force") });
  for (const { result, recovered } of entries) {
    const where = path.relative(RESEARCH_DIR, result.outDir);
    const verb = recovered ? "还原" : "已存在";
    console.log(
      `${result.packageName}@${result.version}：${verb} ${result.files.length} 个文件（来自 ${result.maps} 个 .js.map）→ ${where}`,
    );
    if (result.missingContent.length > 0) {
      console.log(`  注意：${result.missingContent.length} 个源文件在 map 里没有 sourcesContent，无法还原：`);
      for (const f of result.missingContent) console.log(`    ${f}`);
    }
    if (result.conflicts.length > 0) {
      console.log(`  注意：${result.conflicts.length} 个源文件在不同 map 里内容不一致（取第一次出现的）：`);
      for (const f of result.conflicts) console.log(`    ${f}`);
    }
    if (result.outside.length > 0) {
      console.log(`  跳过 ${result.outside.length} 个指向包外的 sources 条目。`);
    }
  }
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
}
