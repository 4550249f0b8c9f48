// 用法：npm run typecheck   对仓库脚本、每个步骤、工具包和参考答案各做一次 tsc --noEmit 的检查
//
// 20 个项目不再各起一次 tsc：分给两个子进程（两核），每个子进程在自己里面依次检查分到的项目，
// 项目之间共用解析好的 .d.ts（scripts/lib/typecheck.ts）。每个项目的选项、文件和报告的错误与 tsc --noEmit 相同。
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import readline from "node:readline";
import { fileURLToPath } from "node:url";
import { paint, shouldColor } from "./lib/color.ts";
import { repoRoot, toPosix } from "./lib/paths.ts";
import { listSteps, stepDir } from "./lib/steps.ts";
import { resolveTsxLoader } from "./lib/tsx-cli.ts";
import { checkProjects, type ProjectResult } from "./lib/typecheck.ts";

// 子进程：检查命令行上给的项目，每个结果打印成一行 JSON（父进程见文件末尾的 main）
if (process.argv[2] === "--projects") checkProjects(process.argv.slice(3), (result) => process.stdout.write(JSON.stringify(result) + "\n"));
else await main();

async function main(): Promise<void> {
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

  /** 一个子进程检查 dirs，结果按完成的先后交给 onResult；子进程没给出结果就退出时，缺的项目算失败并带上它的输出。 */
  function checkInChild(dirs: string[], onResult: (result: ProjectResult) => void): Promise<void> {
    return new Promise((resolve) => {
      const child = spawn(process.execPath, ["--import", resolveTsxLoader(), fileURLToPath(import.meta.url), "--projects", ...dirs], {
        cwd: repoRoot,
        stdio: ["ignore", "pipe", "pipe"],
      });
      const got = new Set<string>();
      let stderr = "";
      child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
      readline.createInterface({ input: child.stdout }).on("line", (line) => {
        const result = JSON.parse(line) as ProjectResult;
        got.add(result.dir);
        onResult(result);
      });
      child.on("close", (code) => {
        for (const dir of dirs.filter((d) => !got.has(d))) onResult({ dir, ok: false, files: 0, output: `类型检查进程退出（退出码 ${code}），没有检查这个项目：\n${stderr}` });
        if (code !== 0 && dirs.every((d) => got.has(d))) crashes.push(`类型检查进程检查完之后以退出码 ${code} 结束：\n${stderr}`);
        resolve();
      });
    });
  }

  // 两个子进程轮流分项目（大的根目录与 step08、09 分开），结果按项目的顺序打印
  const results = new Map<string, ProjectResult>();
  const crashes: string[] = [];
  let printed = 0;
  const flush = (): void => {
    for (; printed < projects.length && results.has(projects[printed]!); printed++) {
      const r = results.get(projects[printed]!)!;
      const dir = projects[printed]!;
      if (r.ok) process.stdout.write(`${p.green("✓")} ${label(dir)}\n`);
      else process.stdout.write(`${p.red("✗")} ${label(dir)}\n${r.output.trimEnd()}\n`);
    }
  };
  const groups = [projects.filter((_, i) => i % 2 === 0), projects.filter((_, i) => i % 2 === 1)];
  await Promise.all(
    groups.map((dirs) =>
      checkInChild(dirs, (result) => {
        results.set(result.dir, result);
        flush();
      }),
    ),
  );

  for (const crash of crashes) process.stdout.write(`${p.red("✗")} ${crash}\n`);
  const failed = [...results.values()].filter((r) => !r.ok).length + crashes.length;
  const files = [...results.values()].reduce((sum, r) => sum + r.files, 0);
  process.stdout.write(failed === 0 ? `\n类型检查通过：${projects.length} 个项目（每个项目一个程序，合计 ${files} 个文件）\n` : `\n类型检查失败：${failed}/${projects.length} 个项目有错误\n`);
  process.exitCode = failed === 0 ? 0 : 1;
}
