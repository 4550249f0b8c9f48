/**
 * 练习允许学习者在 src/ 里「只加不改」的文件：书上 8.5 的第 4 步要在 step07 的 src/rules.ts 的 RULES 里加两条规则。
 * 检查器（src-unchanged.ts）和步骤副本的检查（step-copies.ts）都按这张表放行，别的 src/ 改动照样点名。
 */

export interface Additions {
  /** 相对步骤目录的文件。 */
  file: string;
  /** 那个数组开头的一行：加的行必须落在它和它之后第一个 "];" 之间。 */
  opens: string;
}

export const LEARNER_ADDITIONS: Readonly<Record<string, Additions>> = {
  "step07-abort-extensions": { file: "src/rules.ts", opens: "export const RULES: Rule[] = [" },
};
