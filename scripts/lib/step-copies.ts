import fs from "node:fs";
import path from "node:path";
import { labsDir } from "./paths.ts";
import { LEARNER_ADDITIONS } from "./exercises/additions.ts";
import { lineHashes, onlyAdditions } from "./exercises/src-unchanged.ts";
import { gitFiles, type StepFiles } from "./step-files.ts";
import { listSteps, stepNumber } from "./steps.ts";
import { normalizeEol } from "./text.ts";
import { walkFiles } from "./walk-files.ts";

/**
 * 步骤是完整的副本：修一个 bug，每一份副本都得修到。
 *
 * 规则：一个文件同时在 step N 与 step N+1 里，两份要么逐字相同（只差换行符不算），
 * 要么在 step N+1 的 README「比 stepNN 多了什么」一节里被提到（写出路径，或它所在的目录，如 `src/providers/`）。
 * 只修了部分副本，检查就失败，并指出文件与两个步骤。
 */

// 每一步都必然不同的文件：自己的说明、包名、golden 输出
const ALWAYS_DIFFERENT = new Set(["README.md", "package.json", "expected-output.txt"]);

export interface CopyProblem {
  file: string;
  from: string;
  to: string;
  message: string;
}

/** README 里「比 stepNN 多了什么」一节：它比的是哪一步，以及提到的路径 */
export function readChangeList(readme: string): { previous: string; paths: string[] } | undefined {
  const lines = normalizeEol(readme).split("\n");
  const start = lines.findIndex((l) => /^\*\*比 step\d{2} 多了什么\*\*/.test(l));
  if (start < 0) return undefined;
  const previous = /^\*\*比 (step\d{2}) 多了什么/.exec(lines[start] ?? "")?.[1] ?? "";
  const paths: string[] = [];
  for (let i = start + 1; i < lines.length; i++) {
    const line = lines[i] ?? "";
    // 一节到下一个粗体段落或标题为止
    if (/^(\*\*|#)/.test(line)) break;
    for (const m of line.matchAll(/`([^`\s]+)`/g)) {
      const span = (m[1] ?? "").replace(/:\d+(-\d+)?$/, "");
      if (/^[\w.-]+(\/[\w.-]+)*\/?$/.test(span) && (span.includes("/") || /\.\w+$/.test(span))) paths.push(span);
    }
  }
  return { previous, paths };
}

/** file 是否被 paths 里的某一项提到：完全相同，或在提到的目录下 */
export function isNamed(file: string, paths: string[]): boolean {
  return paths.some((p) => (p.endsWith("/") ? file.startsWith(p) : file === p));
}

function readText(abs: string): string {
  return normalizeEol(fs.readFileSync(abs, "utf8"));
}

/**
 * 比较用的内容。练习允许学习者「只加不改」的文件（step07 的 src/rules.ts，见 exercises/additions.ts）
 * 若真的只是加了规则，就用提交的版本：学习者照书做练习，不该让 npm test 说副本不一致。
 */
function contentOf(root: string, step: string, file: string, git: StepFiles | undefined): string {
  const text = readText(path.join(labsDir(root), step, ...file.split("/")));
  const allowed = LEARNER_ADDITIONS[step];
  if (allowed === undefined || allowed.file !== file || git === undefined) return text;
  const committed = git.read(step, file);
  if (committed === undefined) return text;
  const original = normalizeEol(committed.toString("utf8"));
  return original !== text && onlyAdditions(text, lineHashes(original), allowed.opens) === undefined ? original : text;
}

/** 步骤里参与检查的文件：目录里现有的文件，去掉 git 没有跟踪的（学习者自己加的文件不算副本） */
function stepFiles(root: string, step: string, untracked: (step: string) => string[]): string[] {
  const own = new Set(untracked(step));
  return walkFiles(path.join(labsDir(root), step)).filter((f) => !own.has(f));
}

export interface CopyStats {
  /** 比较过的相邻步骤对 */
  pairs: number;
  /** 两步都有、逐字节比较过的文件 */
  files: number;
}

export function checkStepCopies(root: string): CopyProblem[] {
  return checkStepCopiesWithStats(root).problems;
}

/** 同 checkStepCopies，另外数出比较了多少（下限见 floors.ts：什么也没比较时不能算通过） */
export function checkStepCopiesWithStats(root: string): { problems: CopyProblem[]; stats: CopyStats } {
  const stats: CopyStats = { pairs: 0, files: 0 };
  const steps = listSteps(root);
  const git = gitFiles(root);
  const untracked = (step: string) => git?.local(step).untracked ?? [];
  const problems: CopyProblem[] = [];
  for (let i = 1; i < steps.length; i++) {
    const from = steps[i - 1] ?? "";
    const to = steps[i] ?? "";
    const fromDir = path.join(labsDir(root), from);
    const toDir = path.join(labsDir(root), to);
    const shortFrom = `step${String(stepNumber(from)).padStart(2, "0")}`;
    const readmePath = path.join(toDir, "README.md");
    const list = fs.existsSync(readmePath) ? readChangeList(fs.readFileSync(readmePath, "utf8")) : undefined;
    const toFiles = new Set(stepFiles(root, to, untracked));
    const shared = stepFiles(root, from, untracked).filter((f) => toFiles.has(f) && !ALWAYS_DIFFERENT.has(path.posix.basename(f)));
    stats.pairs++;
    stats.files += shared.length;
    const differing = shared.filter((f) => contentOf(root, from, f, git) !== contentOf(root, to, f, git));
    if (differing.length === 0) continue;
    if (list === undefined || list.previous !== shortFrom) {
      problems.push({
        file: `${to}/README.md`,
        from,
        to,
        message: `${to}/README.md 没有「**比 ${shortFrom} 多了什么**」一节，无法核对与 ${from} 不同的 ${differing.length} 个文件：${differing.join("、")}`,
      });
      continue;
    }
    for (const file of differing) {
      if (isNamed(file, list.paths)) continue;
      problems.push({
        file,
        from,
        to,
        message:
          `${file}：${from} 与 ${to} 的副本不同，但 ${to}/README.md 的「比 ${shortFrom} 多了什么」没有提到它。` +
          `如果是这一章的改动，把 \`${file}\` 写进那一节；如果是修 bug，把同样的修改带到另一份副本（npm run diff -- ${shortFrom.slice(4)} ${to.slice(4, 6)} 查看差异）。`,
      });
    }
  }
  return { problems, stats };
}
