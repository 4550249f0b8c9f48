/**
 * npm run exercise 的全部行为（scripts/exercise.ts 只是个入口）：
 *
 *   npm run exercise                 列出全部练习的 ✓/✗、完成数，以及下一个该做哪个
 *   npm run exercise -- 4            检查练习 4（step04 里的文件）
 *   npm run exercise -- 4 --hint     看练习 4 的下一级提示：点拨 → 位置 → 轮廓
 *   npm run exercise -- 4 --watch    文件一变就重新检查（Ctrl+C 退出）
 *   npm run exercise -- 4 --dir <目录>   检查一份步骤副本
 *   npm run exercise -- 4 --seed 123   用同一个种子重造上次的随机用例（没通过时报告里有这个数）
 *
 * 每个步骤目录的 package.json 里也有 "exercise" 脚本，它替你带上编号：在 step04 里运行
 * npm run exercise 就是 npm run exercise -- 4。所以同一个编号写两次（4 4）不算错。
 */

import fs from "node:fs";
import path from "node:path";

import { paint, type Paint } from "../color.ts";
import { stepDir } from "../steps.ts";
import { EXERCISES, findExercise, GRADUATION } from "./registry.ts";
import { commandFor, exerciseKey, formatReport, runExercise, type RunOptions } from "./run.ts";
import { nextHintLevel } from "./state.ts";
import { passed, type Exercise, type Report } from "./types.ts";

export const USAGE = [
  "用法：npm run exercise [-- <编号> [--hint | --watch | --dir <步骤目录> | --seed <种子>]]",
  "  不带参数：列出全部练习和完成情况",
  "  <编号>：练习编号就是步骤编号，例如 npm run exercise -- 4",
  "  （在步骤目录里运行 npm run exercise 时，编号已经替你带上了）",
].join("\n");

export interface CliEnv {
  root: string;
  /** 提示级别记在这里。 */
  stateFile: string;
  write(text: string): void;
  color?: boolean;
  /** 只为测试：按练习给出步骤目录（默认是仓库里的步骤目录）。 */
  dirFor?(exercise: Exercise): string;
  runOptions?: RunOptions;
  /** 怎样检查一个练习；默认就在这个进程里（测试用），入口脚本换成在子进程里检查（isolated.ts）。 */
  check?(exercise: Exercise, dir: string, options: RunOptions): Promise<Report>;
  /** 列表里也列出毕业练习（入口脚本这样做；测试里的列表只有按步骤编号的练习）。 */
  graduation?: boolean;
  /** 从哪个步骤目录的 npm run exercise 来的（那个脚本替学习者带上了编号）；在仓库根目录运行时没有。 */
  fromStep?: number;
}

const HINT_NAMES = ["点拨", "位置", "轮廓"] as const;

export interface ParsedArgs {
  /** 练习编号，或者毕业练习的名字（pi）。 */
  id?: number | string;
  hint: boolean;
  watch: boolean;
  dir?: string;
  seed?: number;
}

/** 解析参数；不认识的参数返回一句错误。fromStep：在哪个步骤目录里运行（见 CliEnv）。 */
export function parseArgs(argv: string[], fromStep?: number): ParsedArgs | string {
  const parsed: ParsedArgs = { hint: false, watch: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? "";
    if (arg === "--hint") parsed.hint = true;
    else if (arg === "--watch") parsed.watch = true;
    else if (arg === "--dir") {
      const value = argv[++i];
      if (value === undefined) return "--dir 后面要跟一个步骤目录";
      parsed.dir = path.resolve(value);
    } else if (arg === "--seed") {
      const value = argv[++i] ?? "";
      if (!/^\d{1,10}$/.test(value) || Number(value) >= 2 ** 32) return "--seed 后面要跟一个 0 到 4294967295 之间的整数（报告里打印的那个种子）";
      parsed.seed = Number(value);
    } else if ((/^\d+$/.test(arg) || arg === GRADUATION.slug) && (parsed.id === undefined || parsed.id === idOf(arg))) parsed.id = idOf(arg);
    else if (/^\d+$/.test(arg) || arg === GRADUATION.slug) return twoIds(parsed.id!, idOf(arg), fromStep);
    else return `不认识的参数：${arg}`;
  }
  if ((parsed.hint || parsed.watch || parsed.dir !== undefined || parsed.seed !== undefined) && parsed.id === undefined) return "--hint、--watch、--dir、--seed 要跟在练习编号后面";
  if (parsed.hint && parsed.watch) return "--hint 和 --watch 不能一起用";
  return parsed;
}

/** 给了两个不同的编号：在步骤目录里运行时第一个是脚本带上的，只在那时才提步骤目录。 */
const idOf = (arg: string): number | string => (/^\d+$/.test(arg) ? Number(arg) : arg);

function twoIds(first: number | string, second: number | string, fromStep: number | undefined): string {
  if (fromStep === undefined) return `一次只能检查一个练习，这里给了 ${first} 和 ${second}：npm run exercise -- ${first} 或 npm run exercise -- ${second}`;
  return `这里只能检查练习 ${fromStep}（这个步骤目录里的 npm run exercise 已经带上了它的编号）；检查练习 ${second} 请在仓库根目录运行 npm run exercise -- ${second}`;
}

/** --dir 指向的目录能不能拿来检查这个练习：不存在、不是目录、是别的步骤的目录，都说出来（退出码 2）。 */
export function dirProblem(exercise: Exercise, dir: string): string | undefined {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(dir);
  } catch {
    return `--dir 指向的目录不存在：${dir}`;
  }
  if (!stat.isDirectory()) return `--dir 要指向一个步骤目录，${dir} 不是目录`;
  let name: unknown;
  try {
    name = (JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8")) as { name?: unknown }).name;
  } catch {
    return undefined; // 没有 package.json 的副本也可以查：只是认不出它是哪个步骤
  }
  if (typeof name === "string" && /^step\d\d-/.test(name) && name !== exercise.step) {
    return `--dir 指向的是 ${name} 的目录，练习 ${exerciseKey(exercise)} 在 ${exercise.step} 里（编号就是步骤编号）`;
  }
  return undefined;
}

const listOfIds = (): string => [...EXERCISES.map((exercise) => `${exercise.id}（第 ${exercise.chapter} 章）`), `${GRADUATION.slug}（毕业练习，第 ${GRADUATION.chapter} 章之后）`].join("、");

/** 运行一次命令（--watch 除外，它由入口脚本处理），返回退出码。 */
export async function runCli(argv: string[], env: CliEnv): Promise<number> {
  const p = paint(env.color ?? false);
  const parsed = parseArgs(argv, env.fromStep);
  if (typeof parsed === "string") {
    env.write(`${parsed}\n${USAGE}\n`);
    return 2;
  }
  if (parsed.id === undefined) return listAll(env, p);
  const exercise = findExercise(parsed.id);
  if (exercise === undefined) {
    env.write(`没有练习 ${parsed.id}。现有练习：${listOfIds()}\n`);
    return 2;
  }
  if (parsed.hint) {
    const level = nextHintLevel(env.stateFile, exerciseKey(exercise));
    const more = level < 3 ? `还卡着就再运行一次 ${commandFor(exercise, " --hint", env.fromStep)}，看第 ${level + 1} 级。` : "这是最后一级提示；参考答案在 solutions/ 里，先自己试完再看。";
    env.write(`练习 ${exerciseKey(exercise)} · 第 ${exercise.chapter} 章 · 提示 ${level}/3（${HINT_NAMES[level - 1]}）：\n${exercise.hints[level - 1]}\n\n${more}\n`);
    return 0;
  }
  const problem = parsed.dir === undefined ? undefined : dirProblem(exercise, parsed.dir);
  if (problem !== undefined) {
    env.write(`${problem}\n`);
    return 2;
  }
  const dir = parsed.dir ?? dirOf(exercise, env);
  const report = await (env.check ?? runExercise)(exercise, dir, { ...env.runOptions, ...(parsed.seed !== undefined ? { seed: parsed.seed } : {}) });
  env.write(formatReport(report, env.root, p, env.fromStep) + "\n");
  return passed(report) ? 0 : 1;
}

const dirOf = (exercise: Exercise, env: CliEnv): string => env.dirFor?.(exercise) ?? stepDir(env.root, exercise.step);

/** 列出全部练习：逐个检查，✓/✗、完成数、下一个。 */
async function listAll(env: CliEnv, p: Paint): Promise<number> {
  env.write("第 8 章的练习（编号就是步骤编号；任务写在各章的「实践任务」里）：\n\n");
  let done = 0;
  let next: Exercise | undefined;
  const line = async (exercise: Exercise): Promise<boolean> => {
    const report = await (env.check ?? runExercise)(exercise, dirOf(exercise, env), env.runOptions ?? {});
    const ok = passed(report);
    const failing = report.checks.filter((check) => !check.ok && check.skipped === undefined).length;
    const state = ok ? "" : report.notStarted ? p.dim("  还没开始") : p.dim(`  ${failing} 项没通过`);
    env.write(`${ok ? p.green("✓") : p.red("✗")} ${exerciseKey(exercise).padStart(2)}  第 ${exercise.chapter} 章  ${exercise.title}（${exercise.step}/${exercise.file}）${state}\n`);
    return ok;
  };
  for (const exercise of EXERCISES) {
    if (await line(exercise)) done++;
    else next ??= exercise;
  }
  // 毕业练习列在最后，不算进上面的完成数：它要先 npm ci --prefix research
  const graduated = env.graduation ? await line(GRADUATION) : true;
  const graduationState = env.graduation ? `（第 8 章的 ${EXERCISES.length} 个练习；毕业练习 ${GRADUATION.slug} 另算：${graduated ? "通过" : "还没通过"}）` : "";
  env.write(`\n${done}/${EXERCISES.length} 完成${graduationState}\n`);
  if (next) env.write(`下一个：${commandFor(next)}（第 ${next.chapter} 章「实践任务」：${next.title}）\n`);
  else if (!graduated) env.write(`下一个：${commandFor(GRADUATION)}（${GRADUATION.title}；先 npm ci --prefix research）\n`);
  else env.write("全部完成。\n");
  return 0;
}
