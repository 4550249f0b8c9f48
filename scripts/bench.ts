// 用法：
//   npm run bench                        测量 §9 的全部数字，打印一张表，并写 bench-results/latest.json
//   npm run bench -- --quick             快速模式（数量少，几秒钟；不看目标）
//   npm run bench -- --out a.json        JSON 写到别处（例如按 commit 存一份）
//   npm run bench -- --compare a.json    多一列：与之前某次结果对比
//   npm run bench -- --only root-tests   只测一组（组名见 scripts/lib/bench-runner.ts 的 BENCHES，可重复）
import fs from "node:fs";
import path from "node:path";
import { shouldColor } from "./lib/color.ts";
import { BENCHES, runBench, type BenchResults } from "./lib/bench-runner.ts";
import { repoRoot } from "./lib/paths.ts";

const USAGE = `用法：npm run bench -- [--quick] [--out 文件] [--compare 之前的结果.json] [--only 组名]…
  组名：${BENCHES.map((b) => b.id).join("、")}
  默认把结果写到 bench-results/latest.json。有测量出错时退出码为 1；没达到目标只在表里标 ✗。
`;

function parse(argv: string[]): { quick: boolean; out?: string; compare?: string; only: string[] } | string {
  const r: { quick: boolean; out?: string; compare?: string; only: string[] } = { quick: false, only: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--quick") r.quick = true;
    else if (a === "--out" || a === "--compare") {
      const v = argv[++i];
      if (v === undefined || v.startsWith("--")) return `${a} 需要一个文件路径`;
      if (a === "--out") r.out = path.resolve(v);
      else r.compare = path.resolve(v);
    } else if (a === "--only") {
      const v = argv[++i];
      if (v === undefined || !BENCHES.some((b) => b.id === v)) return `--only 需要一个组名（${BENCHES.map((b) => b.id).join("、")}）`;
      r.only.push(v);
    } else return `不认识的参数：${a}`;
  }
  return r;
}

if (process.argv.includes("--help") || process.argv.includes("-h")) {
  process.stdout.write(USAGE);
  process.exit(0);
}
const args = parse(process.argv.slice(2));
if (typeof args === "string") {
  process.stderr.write(`${args}\n\n${USAGE}`);
  process.exit(2);
}

let compareWith: BenchResults | undefined;
if (args.compare !== undefined) {
  try {
    compareWith = JSON.parse(fs.readFileSync(args.compare, "utf8")) as BenchResults;
  } catch (error) {
    process.stderr.write(`读不了 ${args.compare}：${(error as Error).message}\n`);
    process.exit(2);
  }
}

const { code } = await runBench({
  root: repoRoot,
  quick: args.quick,
  out: process.stdout,
  color: shouldColor(process.stdout),
  ...(args.out === undefined ? {} : { jsonFile: args.out }),
  ...(compareWith === undefined ? {} : { compareWith }),
  ...(args.only.length === 0 ? {} : { benches: BENCHES.filter((b) => args.only.includes(b.id)) }),
});
process.exitCode = code;
