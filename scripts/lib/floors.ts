/**
 * 会数数的检查器的下限：今天的仓库都达到了。查到的比下限少，说明检查器什么也没查（比如 docs/ 被挪走、
 * 步骤目录没检出），这时要失败，而不是打印「通过：0 章」。数字留了一点余量，删几处引用不会误报。
 * 真要减少（比如合并两章），把这里的数字一起改小，并在提交说明里写为什么。
 */
export const FLOORS = {
  /** docs/ 下的章节（不含 README.md）：8.1–8.8 与 5.6 */
  chapters: 9,
  /** 章节里被核对的代码引用（代码块 + 行内）：今天 271 */
  citations: 250,
  /** 章节里与 golden 核对的 demo 输出块：今天 10 */
  transcripts: 10,
  /** npm run demo 比较的步骤（每个都有 expected-output.txt）：step01–step10 */
  goldenSteps: 10,
  /** 步骤副本检查比较的相邻步骤对：10 个步骤 → 9 对 */
  stepPairs: 9,
  /** 步骤副本检查逐字节比较过的文件（相邻两步都有的文件）：今天 237 */
  stepCopyFiles: 200,
  /** 练习：step02–step10 各一个 */
  exercises: 9,
} as const;

/** 每一项低于下限时的一句话；都达到时是空数组 */
export function floorProblems(counts: Record<string, number>, floors: Record<string, number>, labels: Record<string, string>): string[] {
  const problems: string[] = [];
  for (const [key, floor] of Object.entries(floors)) {
    const found = counts[key] ?? 0;
    if (found < floor) problems.push(`只查到 ${found} ${labels[key] ?? key}，期望至少 ${floor}：检查器可能什么也没查到（目录挪走了、没检出？）`);
  }
  return problems;
}
