import fs from "node:fs";
import path from "node:path";
import { labsDir } from "./paths.ts";

// 步骤目录名的约定：两位编号 + 短横线 + 名字，例如 step07-abort-extensions
const STEP_DIR = /^step(\d{2})-[a-z0-9][a-z0-9-]*$/;

export class StepNotFoundError extends Error {}

/** 列出所有步骤目录名（按名字排序，编号两位所以字典序就是数字序）。 */
export function listSteps(root: string): string[] {
  const dir = labsDir(root);
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && STEP_DIR.test(e.name))
    .map((e) => e.name)
    .sort();
}

export function stepDir(root: string, step: string): string {
  return path.join(labsDir(root), step);
}

/** 步骤名里的编号，例如 "step07-abort-extensions" → 7 */
export function stepNumber(step: string): number | undefined {
  const m = STEP_DIR.exec(step);
  return m?.[1] === undefined ? undefined : Number(m[1]);
}

/**
 * 把命令行参数解析成步骤目录名：接受 `7`、`07`、`step07` 或完整目录名。
 * 找不到时抛出中文错误，列出现有步骤，免得用户去翻目录。
 */
export function resolveStep(arg: string, root: string): string {
  const steps = listSteps(root);
  const wanted = arg.trim().replace(/[\\/]+$/, "");
  const base = path.basename(wanted); // 允许传入 labs/mini-agent-harness/step07-xxx 这样的路径
  let found: string | undefined;
  if (/^\d{1,2}$/.test(base)) {
    found = steps.find((s) => stepNumber(s) === Number(base));
  } else if (/^step\d{2}$/.test(base)) {
    found = steps.find((s) => s.startsWith(`${base}-`));
  } else {
    found = steps.find((s) => s === base);
  }
  if (found === undefined) {
    const list = steps.length > 0 ? steps.map((s) => `  ${s}`).join("\n") : "  （labs/mini-agent-harness/ 下还没有任何步骤）";
    throw new StepNotFoundError(`找不到步骤「${arg}」。可用的步骤：\n${list}\n可以写编号（7 或 07）或完整目录名。`);
  }
  return found;
}
