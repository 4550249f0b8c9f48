/**
 * 全部练习，按章节顺序。编号就是步骤编号：练习 4 的文件写在 step04 里。
 */

import { exercise02 } from "./step02.ts";
import { exercise03 } from "./step03.ts";
import { exercise04 } from "./step04.ts";
import { exercise05 } from "./step05.ts";
import { exercise06 } from "./step06.ts";
import { exercise07 } from "./step07.ts";
import { exercise08 } from "./step08.ts";
import { exercise09 } from "./step09.ts";
import type { Exercise } from "./types.ts";

export const EXERCISES: readonly Exercise[] = [exercise02, exercise03, exercise04, exercise05, exercise06, exercise07, exercise08, exercise09];

export function findExercise(id: number): Exercise | undefined {
  return EXERCISES.find((exercise) => exercise.id === id);
}
