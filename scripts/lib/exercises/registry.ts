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
import { exercise10 } from "./step10.ts";
import { graduation } from "./graduation.ts";
import type { Exercise } from "./types.ts";

export const EXERCISES: readonly Exercise[] = [exercise02, exercise03, exercise04, exercise05, exercise06, exercise07, exercise08, exercise09, exercise10];

/** 毕业练习（npm run exercise -- pi）：在真正的 Pi 里跑，要先 npm ci --prefix research；列在练习 10 之后。 */
export const GRADUATION: Exercise = graduation;

/** 按编号或名字（pi）找练习。 */
export function findExercise(key: number | string): Exercise | undefined {
  if (key === GRADUATION.slug) return GRADUATION;
  return EXERCISES.find((exercise) => exercise.id === key);
}
