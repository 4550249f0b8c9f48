/**
 * 提示看到了第几级，记在仓库根目录的 .exercise-state.json 里（已写进 .gitignore）。
 * 文件坏了或不存在都当作「一级提示都还没看」，不让一个状态文件挡住练习。
 */

import fs from "node:fs";

export interface ExerciseState {
  /** 练习编号 → 已经看过的最高一级提示（1..3）。 */
  hintLevel: Record<string, number>;
}

export function readState(file: string): ExerciseState {
  try {
    const parsed = JSON.parse(fs.readFileSync(file, "utf8")) as Partial<ExerciseState>;
    const levels = typeof parsed.hintLevel === "object" && parsed.hintLevel !== null ? parsed.hintLevel : {};
    const clean = Object.fromEntries(Object.entries(levels).filter(([, level]) => Number.isInteger(level) && level >= 0 && level <= 3));
    return { hintLevel: clean };
  } catch {
    return { hintLevel: {} };
  }
}

export function writeState(file: string, state: ExerciseState): void {
  fs.writeFileSync(file, JSON.stringify(state, null, 2) + "\n");
}

/** 取下一级提示的级数（1..3），并记下来。已经到第 3 级时停在第 3 级。 */
export function nextHintLevel(file: string, id: number | string): number {
  const state = readState(file);
  const level = Math.min((state.hintLevel[String(id)] ?? 0) + 1, 3);
  state.hintLevel[String(id)] = level;
  writeState(file, state);
  return level;
}
