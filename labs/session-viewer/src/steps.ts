/**
 * 用哪个步骤的规则读会话：--step 说了算；没说就看会话文件或当前目录在哪个步骤里；都不是就用 step09。
 * 只有 step06 起才有会话文件（src/session.ts）。
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const harnessDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "mini-agent-harness");
export const DEFAULT_STEP = 9;

const STEP_DIR = /^step(\d{2})-[a-z0-9-]+$/;

export interface StepChoice {
  /** 目录名，例如 step07-abort-extensions。 */
  name: string;
  number: number;
  dir: string;
}

/** 有会话加载函数的步骤（step06 起）。 */
export function sessionSteps(): StepChoice[] {
  return fs
    .readdirSync(harnessDir)
    .map((name) => ({ name, match: STEP_DIR.exec(name) }))
    .filter((item) => item.match && fs.existsSync(path.join(harnessDir, item.name, "src", "session.ts")))
    .map((item) => ({ name: item.name, number: Number(item.match?.[1]), dir: path.join(harnessDir, item.name) }))
    .sort((a, b) => a.number - b.number);
}

/** 路径里离它最近的那个步骤目录的编号。 */
function stepInPath(location: string): number | undefined {
  for (const part of path.resolve(location).split(path.sep).reverse()) {
    const match = STEP_DIR.exec(part);
    if (match) return Number(match[1]);
  }
  return undefined;
}

export function chooseStep(requested: string | undefined, sessionFile: string, cwd: string): StepChoice {
  const steps = sessionSteps();
  const list = steps.map((step) => step.name).join("、");
  if (requested !== undefined) {
    const number = /^\d{1,2}$/.test(requested.trim()) ? Number(requested) : NaN;
    const found = steps.find((step) => step.number === number);
    if (!found) throw new Error(`--step ${requested}：没有这个带会话的步骤。可用：${list}`);
    return found;
  }
  const guess = stepInPath(sessionFile) ?? stepInPath(cwd) ?? DEFAULT_STEP;
  return steps.find((step) => step.number === guess) ?? steps.find((step) => step.number === DEFAULT_STEP) ?? (steps.at(-1) as StepChoice);
}
