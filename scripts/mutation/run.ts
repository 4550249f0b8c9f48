// 用法：npm run mutation [-- --mutate src/retry/backoff.ts [--mutate src/guard.ts …]] [--concurrency 1] [--ignore-static] [--incremental]
//       npm run mutation -- --summary-only   （不重跑，只按上次的报告重新汇总）
// 用 StrykerJS 变异第 09 步的 src/，用第 09 步自己的测试去杀，然后打印每个文件的变异分数。
// 报告（HTML 与 JSON）写到 reports/mutation/（不提交）；等价的存活者登记在 scripts/mutation/equivalents.json。
// 不带 --mutate 时变异整个 src/，并检查目标：总分 ≥ 85 %，核心文件 ≥ 90 %；没达到时退出码为 1。
import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { Stryker } from "@stryker-mutator/core";

import { repoRoot, toPosix } from "../lib/paths.ts";
import { scoreOf, sumScores, summarize, type Equivalent, type FileScore, type Report } from "./summary.ts";

const here = path.join(repoRoot, "scripts", "mutation");
const stepRel = "labs/mini-agent-harness/step09-retry-timeout";
const stepRoot = path.join(repoRoot, stepRel);
const reportFile = path.join(repoRoot, "reports", "mutation", "mutation.json");
const equivalentsFile = path.join(here, "equivalents.json");

/** 目标（issue 24 §4、DESIGN §9）：名字是相对于第 09 步目录的文件，或以 / 结尾的目录。 */
const OVERALL_TARGET = 85;
const CORE_TARGET = 90;
const CORE = ["src/agent-loop.ts", "src/sse.ts", "src/session.ts", "src/retry/", "src/providers/http-retry.ts", "src/guard.ts", "src/extensions.ts"];

const { values } = parseArgs({
  options: {
    mutate: { type: "string", multiple: true },
    concurrency: { type: "string" },
    incremental: { type: "boolean" },
    "ignore-static": { type: "boolean" },
    // 不跑 Stryker，只按现有的 reports/mutation/mutation.json 重新汇总（改了 equivalents.json 之后用）
    "summary-only": { type: "boolean" },
  },
});

// --mutate 的文件名相对于第 09 步目录（src/guard.ts），也接受相对于仓库根目录的写法
const mutate = values.mutate?.map((m) => (m.startsWith(stepRel) ? m : `${stepRel}/${m.replace(/^\.\//, "")}`));
// --summary-only 汇总的可能是上次只跑了一部分的报告：不检查总分
const wholeRun = mutate === undefined && !values["summary-only"];

// Stryker 的路径（配置、mutate、报告、沙箱）都相对于工作目录：固定为仓库根目录
process.chdir(repoRoot);
const started = Date.now();
if (values["summary-only"] && !fs.existsSync(reportFile)) {
  process.stderr.write(`还没有报告（${toPosix(path.relative(repoRoot, reportFile))}）：先跑一次 npm run mutation\n`);
  process.exit(1);
}
if (!values["summary-only"]) await runStryker();
const seconds = (Date.now() - started) / 1000;

async function runStryker(): Promise<void> {
  const stryker = new Stryker({
    configFile: "scripts/mutation/stryker.config.mjs",
    // 终端里画进度条；输出进了文件或管道时每个变异体一个点，不刷屏
    reporters: ["html", "json", "survivors", process.stderr.isTTY ? "progress" : "dots"],
    ...(mutate ? { mutate } : {}),
    ...(values.concurrency ? { concurrency: Number(values.concurrency) } : {}),
    // 静态变异体（只在加载模块时执行的，如 classify.ts 的正则表）每个都要重载环境、重跑全部相关测试：
    // 改代码时先跳过它们，快得多；完整的一次（不带 --mutate）不要跳过
    ...(values["ignore-static"] ? { ignoreStatic: true } : {}),
    ...(values.incremental ? { incremental: true, incrementalFile: "reports/mutation/stryker-incremental.json" } : {}),
  });
  await stryker.runMutationTest();
}

const report = JSON.parse(fs.readFileSync(reportFile, "utf8")) as Report;
const equivalents = JSON.parse(fs.readFileSync(equivalentsFile, "utf8")) as Equivalent[];
const { files, unlisted, stale, timedOut } = summarize(report, equivalents, (name) =>
  toPosix(path.relative(stepRoot, path.resolve(repoRoot, name))),
);

const pct = (n: number) => `${n.toFixed(1).padStart(5)} %`;
const row = (s: FileScore) =>
  `${s.file.padEnd(36)} ${String(s.killed).padStart(5)} ${String(s.survived).padStart(5)} ${String(s.equivalent).padStart(5)}  ${pct(scoreOf(s, false))}  ${pct(scoreOf(s, true))}`;

const out: string[] = [];
out.push("");
out.push(`${"文件（第 09 步）".padEnd(32)} 杀死  存活  等价   分数     不计等价`);
for (const f of files) out.push(row(f));
const retry = files.filter((f) => f.file.startsWith("src/retry/"));
if (retry.length > 1) out.push(row(sumScores("src/retry/（合计）", retry)));
const all = sumScores("全部文件", files);
out.push(row(all));
out.push("");
if (all.ignored > 0) out.push(`跳过（没有测）的变异体：${all.ignored} 个（--ignore-static）。`);
out.push(
  `登记的等价变异体：${equivalents.length} 条（scripts/mutation/equivalents.json），本次对上 ${all.equivalent} 个` +
    (timedOut > 0 ? `（其中 ${timedOut} 个这次超时了：等价的改动只会让测试变慢，或者机器太忙；不算测出来）。` : "。"),
);

for (const s of unlisted) {
  out.push(`  存活 ${stepRel}/${s.file}:${s.line}  ${s.mutator}${s.status === "NoCoverage" ? "（没有测试执行到）" : ""}：${oneLine(s.original)} → ${oneLine(s.replacement)}`);
}
if (unlisted.length > 0) out.push(`没登记的存活者：${unlisted.length} 个（补一个测试杀掉它；真的等价就登记进 equivalents.json）。`);
for (const e of stale) out.push(`  过时的登记 ${e.file}:${e.line}  ${e.mutator}：${oneLine(e.original)} → ${oneLine(e.replacement)}`);
if (stale.length > 0) out.push(`有 ${stale.length} 条登记没对上本次的存活者：代码或测试变了，请更新或删掉它们。`);

// 目标：不计已登记的等价变异体（它们没有测试杀得掉）
const failures: string[] = [];
const check = (label: string, s: FileScore, target: number) => {
  if (s.killed + s.survived === 0) return;
  const score = scoreOf(s, true);
  if (score < target) failures.push(`${label} ${score.toFixed(1)} % < ${target} %`);
};
for (const c of CORE) {
  const parts = files.filter((f) => (c.endsWith("/") ? f.file.startsWith(c) : f.file === c));
  if (parts.length > 0) check(c, sumScores(c, parts), CORE_TARGET);
}
if (wholeRun) check("全部文件", all, OVERALL_TARGET);

out.push("");
out.push(`报告：reports/mutation/index.html 与 mutation.json；用时 ${formatSeconds(seconds)}。`);
if (failures.length > 0) {
  out.push(`变异分数没达到目标：${failures.join("；")}。`);
  process.exitCode = 1;
} else {
  out.push(wholeRun ? `变异分数达到目标：全部 ≥ ${OVERALL_TARGET} %，核心文件 ≥ ${CORE_TARGET} %。` : "本次变异的核心文件都 ≥ 90 %（只跑了一部分文件或只汇总，不检查总分）。");
}
process.stdout.write(out.join("\n") + "\n");

function oneLine(s: string): string {
  const t = s.replace(/\s+/g, " ").trim();
  return t.length > 60 ? `${t.slice(0, 57)}…` : t;
}

function formatSeconds(s: number): string {
  return s < 90 ? `${s.toFixed(0)} 秒` : `${Math.floor(s / 60)} 分 ${Math.round(s % 60)} 秒`;
}
