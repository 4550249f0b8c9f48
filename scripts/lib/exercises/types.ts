/**
 * 练习检查器共用的形状。
 *
 * 一个练习 = 一个步骤目录里学习者新写的一个文件 + 一组按「行为」判断的检查。
 * 检查器只运行学习者的代码、看它做了什么，从不比对代码文本。
 */

import type { Additions } from "./additions.ts";
import type { Random } from "./random.ts";

/** 一项检查的结果。 */
export interface Check {
  /** 学习者看得懂的中文名字，说清楚查的是什么情形。 */
  name: string;
  ok: boolean;
  /** 实际看到了什么（失败时必填，成功时可选）。 */
  saw?: string;
  /** 期望看到什么（可选）。 */
  expected?: string;
  /** 两个长值不相等时：第一处不同在哪、两边多长（saw、expected 这时只是那一处前后的片段，见 mismatch.ts）。 */
  diff?: string;
  /** 这一项没有做，以及为什么（例如系统不允许建符号链接）。skipped 的检查不算通过也不算失败。 */
  skipped?: string;
}

/** 一个练习的定义。 */
export interface Exercise {
  /** 练习编号 = 步骤编号：npm run exercise -- 4 检查 step04 里的练习。 */
  id: number;
  /** 不按步骤编号的练习（毕业练习 pi）在命令行和报告里用这个名字。 */
  slug?: string;
  /** false：不核对步骤的 src/（毕业练习的文件在 Pi 里跑，和步骤的 src/ 无关）。 */
  srcCheck?: false;
  /** 步骤目录名，例如 step04-agent-loop。 */
  step: string;
  /** 所属章节，例如 "8.3"。 */
  chapter: string;
  /** 一句话说明要写什么。 */
  title: string;
  /** 学习者要新建的文件，相对步骤目录（正斜杠）。 */
  file: string;
  /** 三级提示：先点拨用哪个想法，再指出看哪个文件、哪个函数，最后给代码轮廓。 */
  hints: readonly [nudge: string, where: string, outline: string];
  /**
   * 按行为检查 stepDir（真实步骤目录或它的临时副本）里的练习文件。
   * 调用前已确认文件存在；这里负责加载它、运行它、比对结果。
   * random 用来现造随机用例（名字以「随机用例」开头），同一个种子造出同一批。
   */
  check(stepDir: string, random: Random): Promise<Check[]>;
  /** 可选：报告的第一行，说一件学习者这时多半正在疑惑的事（毕业练习：Node 20 上安装时的引擎警告）。 */
  note?(): string | undefined;
  /**
   * 可选：学习者可以在 src/ 的哪个文件里「只加不改」。练习 7 按书上的第 4 步在 src/rules.ts 的
   * RULES 里加两条规则；opens 是那个数组开头的一行，加的行必须落在它和配对的 "];" 之间。
   */
  additions?: Additions;
}

/** 一次检查的完整报告。 */
export interface Report {
  exercise: Exercise;
  stepDir: string;
  checks: Check[];
  /** 文件还不存在：学习者还没开始。 */
  notStarted: boolean;
  /** 这次随机用例的种子（没通过时打印，--seed 重放）。 */
  seed: number;
}

export const passed = (report: Report): boolean =>
  !report.notStarted && report.checks.every((check) => check.ok || check.skipped !== undefined) && report.checks.some((check) => check.ok);
