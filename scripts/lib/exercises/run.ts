/**
 * 跑一个练习的检查，并把结果排成给人看的文字。
 *
 * 输出里的每一句结论都由检查结果算出来：通过几项、哪一项没过、看到了什么；
 * 「宿主代码没动」只有在 src/ 真的核对过时才会出现（见 src-unchanged.ts）。
 */

import fs from "node:fs";
import path from "node:path";

import type { Paint } from "../color.ts";
import { toPosix } from "../paths.ts";
import { attempt } from "./helpers.ts";
import { fitForReport } from "./mismatch.ts";
import { freshSeed, GENERATED, Random } from "./random.ts";
import { checkSrcUnchangedAsync, type LineManifest, type Manifest } from "./src-unchanged.ts";
import { passed, type Check, type Exercise, type Report } from "./types.ts";

export interface RunOptions {
  /** 只为测试：临时副本不在 git 里时，用这份清单核对 src/。 */
  manifest?: Manifest;
  lines?: LineManifest;
  /** 随机用例的种子；不给就每次现取一个。 */
  seed?: number;
}

/**
 * 一项也没查就不能算通过：检查器自己的某个分支漏掉了用例时，报告要说出来，而不是打印一排 ✓。
 * 随机用例也必须真的造出来了。
 */
function nothingChecked(checks: Check[]): Check[] {
  const generated = checks.filter((check) => check.name.startsWith(GENERATED)).length;
  if (checks.every((check) => !check.ok) || generated > 0) return [];
  return [{ name: `检查器现造了${GENERATED}`, ok: false, saw: "这次一条随机用例都没有造出来（检查器的问题，请报告）" }];
}

/** 检查 stepDir 里的练习。永不抛异常：检查器自己出的错也变成一项失败。 */
export async function runExercise(exercise: Exercise, stepDir: string, options: RunOptions = {}): Promise<Report> {
  const seed = options.seed ?? freshSeed();
  const file = path.join(stepDir, ...exercise.file.split("/"));
  if (!fs.existsSync(file)) {
    return { exercise, stepDir, seed, notStarted: true, checks: [{ name: `文件 ${exercise.file} 存在`, ok: false, saw: "还没有这个文件" }] };
  }
  const checks: Check[] = [{ name: `文件 ${exercise.file} 存在`, ok: true }];
  // 问 git 要起子进程：和按行为检查同时进行，不排在它后面
  const src = exercise.srcCheck === false ? undefined : checkSrcUnchangedAsync(stepDir, exercise.step, { ...options, ...(exercise.additions ? { additions: exercise.additions } : {}) });
  const behaviour = await attempt("按行为检查", () => exercise.check(stepDir, new Random(seed)), 90_000);
  checks.push(...behaviour, ...nothingChecked(behaviour));
  if (src) checks.push(await src);
  return { exercise, stepDir, seed, notStarted: false, checks };
}

/** 命令行和报告里怎么称呼这个练习：编号，或者毕业练习的名字（pi）。 */
export const exerciseKey = (exercise: Exercise): string => exercise.slug ?? String(exercise.id);

/**
 * 让学习者再运行的命令。fromStep：在哪个步骤目录里运行（那里的 npm run exercise 已经带上了编号，
 * 再写一遍就成了 exercise.ts 7 7 --hint），这时只写参数。
 */
export function commandFor(exercise: Exercise, flag = "", fromStep?: number): string {
  const args = fromStep === exercise.id && exercise.slug === undefined ? flag.trim() : `${exerciseKey(exercise)}${flag}`;
  return args === "" ? "npm run exercise" : `npm run exercise -- ${args}`;
}

/** 一行最多多少个字符：再长，终端里一条结论就折成好几行，第一处失败被挤出屏幕 */
const LINE_BUDGET = 160;

/**
 * 一项检查的名字排成几行：短的一行；长的（随机用例会把整串故障写进名字）在第一个「：」处断开，
 * 后半截缩进另起，在「 → 」处再折，每行都不超过 LINE_BUDGET。
 */
export function nameLines(name: string): string[] {
  const colon = name.indexOf("：");
  if (name.length <= LINE_BUDGET || colon < 0) return [name];
  const lines = [name.slice(0, colon)];
  let line = "   ";
  for (const piece of name.slice(colon + 1).split(/(?= → )/)) {
    if (line.length > 3 && line.length + piece.length > LINE_BUDGET) {
      lines.push(line);
      line = "   ";
    }
    line += piece;
  }
  lines.push(line);
  return lines;
}

/** 一份报告排成文字。root 用来把路径写成相对仓库根目录的样子；fromStep 见 commandFor。 */
export function formatReport(report: Report, root: string, p: Paint, fromStep?: number): string {
  const { exercise } = report;
  const absolute = path.join(report.stepDir, exercise.file);
  const relative = path.relative(root, absolute);
  // 仓库里的步骤写相对路径；--dir 指向仓库外的副本时写绝对路径
  const where = toPosix(relative.startsWith("..") || path.isAbsolute(relative) ? absolute : relative);
  const note = exercise.note?.();
  const lines = [...(note ? [p.dim(note)] : []), p.bold(`练习 ${exerciseKey(exercise)} · 第 ${exercise.chapter} 章 · ${exercise.title}`), p.dim(`检查 ${where}`), ""];
  for (const check of report.checks) {
    const [head, ...details] = nameLines(check.name);
    if (check.skipped !== undefined) {
      lines.push(`${p.dim("-")} ${head}`, ...details, p.dim(`    跳过：${check.skipped}`));
    } else if (check.ok) {
      lines.push(`${p.green("✓")} ${head}`, ...details);
    } else {
      const shown = fitForReport(check);
      lines.push(`${p.red("✗")} ${head}`, ...details);
      if (shown.diff !== undefined) lines.push(`    ${shown.diff}`);
      if (shown.saw !== undefined) lines.push(`    看到：${shown.saw}`);
      if (shown.expected !== undefined) lines.push(`    期望：${shown.expected}`);
    }
  }
  lines.push("");
  const done = report.checks.filter((check) => check.ok).length;
  const skipped = report.checks.filter((check) => check.skipped !== undefined).length;
  const counted = report.checks.length - skipped;
  const skippedNote = skipped > 0 ? `（另有 ${skipped} 项跳过）` : "";
  if (report.notStarted) {
    lines.push(
      `还没开始：新建 ${exercise.file}。任务写在第 ${exercise.chapter} 章的「实践任务」里。`,
      `第一条提示：${exercise.hints[0]}`,
      `写好后运行 ${commandFor(exercise, "", fromStep)}；需要更多提示：${commandFor(exercise, " --hint", fromStep)}`,
    );
  } else if (passed(report)) {
    lines.push(p.green(`练习 ${exerciseKey(exercise)} 通过：${done}/${counted} 项检查全部通过${skippedNote}。`));
  } else {
    const first = report.checks.find((check) => !check.ok && check.skipped === undefined);
    lines.push(
      p.red(`练习 ${exerciseKey(exercise)} 还没通过：${counted} 项检查里通过 ${done} 项${skippedNote}，第一项没通过的是「${first === undefined ? "？" : nameLines(first.name)[0]}」。`),
      `这次${GENERATED}的种子是 ${report.seed}；用同样的用例再查一次：${commandFor(exercise, ` --seed ${report.seed}`, fromStep)}`,
      `卡住了就看提示（一次多一级）：${commandFor(exercise, " --hint", fromStep)}`,
    );
  }
  return lines.join("\n");
}
