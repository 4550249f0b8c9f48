// 用法：npm run typecheck   对仓库脚本和每个步骤各跑一次 tsc --noEmit
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { paint, shouldColor } from "./lib/color.ts";
import { repoRoot, toPosix } from "./lib/paths.ts";
import { mapInOrder } from "./lib/pool.ts";
import { runNode } from "./lib/run-node.ts";
import { listSteps, stepDir } from "./lib/steps.ts";

// 用根目录装的 typescript，不依赖 PATH 里有没有 tsc
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
const p = paint(shouldColor(process.stdout));

// 根 tsconfig 覆盖 scripts/ 与 vitest.config.ts；步骤目录有 tsconfig.json 的逐个检查，
// 本地脚本服务器（labs/scripted-provider/，步骤 08、09 共用）也单独检查一次
const stepDirs = listSteps(repoRoot).map((s) => stepDir(repoRoot, s));
const hasTsconfig = (d: string) => fs.existsSync(path.join(d, "tsconfig.json"));
// 步骤之外的工具包（脚本服务器、会话查看器）也有自己的 tsconfig
const toolDirs = [path.join(repoRoot, "labs", "scripted-provider"), path.join(repoRoot, "labs", "session-viewer")].filter(hasTsconfig);
// 练习的参考答案：solutions/stepNN/ 各有一份 tsconfig，借步骤的编译选项（rootDirs 让 ../src 指向步骤）
const solutionsDir = path.join(repoRoot, "solutions");
const solutionDirs = fs.existsSync(solutionsDir)
  ? fs.readdirSync(solutionsDir, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => path.join(solutionsDir, e.name)).filter(hasTsconfig).sort()
  : [];
const projects = [repoRoot, ...stepDirs.filter(hasTsconfig), ...toolDirs, ...solutionDirs];
for (const d of stepDirs.filter((d) => !hasTsconfig(d))) {
  process.stdout.write(p.dim(`- ${toPosix(path.relative(repoRoot, d))}：没有 tsconfig.json，跳过`) + "\n");
}

const label = (dir: string) => (dir === repoRoot ? "（根目录：scripts/ 与 vitest.config.ts）" : toPosix(path.relative(repoRoot, dir)));

const results = await mapInOrder(
  projects,
  2,
  (dir) => runNode([tsc, "--noEmit", "-p", dir], repoRoot),
  (r, dir) => {
    if (r.exitCode === 0) {
      process.stdout.write(`${p.green("✓")} ${label(dir)}\n`);
    } else {
      process.stdout.write(`${p.red("✗")} ${label(dir)}\n${r.output.trimEnd()}\n`);
    }
  },
);

const failed = results.filter((r) => r.exitCode !== 0).length;
process.stdout.write(failed === 0 ? `\n类型检查通过：${projects.length} 个项目\n` : `\n类型检查失败：${failed}/${projects.length} 个项目有错误\n`);
process.exitCode = failed === 0 ? 0 : 1;
