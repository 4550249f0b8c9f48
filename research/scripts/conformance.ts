/**
 * 重跑全部对照场景，写出 R12-conformance.md。行为变了、理由改了之后运行一次，连同代码一起提交。
 *   npm run conformance --prefix research
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { renderReport, runAll } from "../conformance/report.ts";

const target = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../R12-conformance.md");
const rows = await runAll();
writeFileSync(target, renderReport(rows));
for (const row of rows) console.log(`${row.differs.length === 0 ? "相同" : "不同"}  ${row.scenario.title}${row.differs.length ? `（${row.differs.join(", ")}）` : ""}`);
console.log(`已写入 ${path.relative(process.cwd(), target)}`);
