import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import v8 from "node:v8";
import { runInNewContext } from "node:vm";
import { repoRoot } from "../lib/paths.ts";
import { listSteps, stepDir, stepNumber } from "../lib/steps.ts";

/** 一个数字：名字、数值、单位；有目标时带上目标与是否达到 */
export interface Figure {
  name: string;
  value: number;
  unit: string;
  /** 写给人看的目标，例如 "< 1000 ms" */
  target?: string;
  ok?: boolean;
}

export interface BenchOptions {
  quick: boolean;
  /** 仓库根目录，默认就是本仓库（测试可以指向别处） */
  root?: string;
}

/** 这一项现在测不了（例如依赖的步骤还不存在）：表里显示原因，不算失败 */
export class BenchSkip extends Error {}

export function rootOf(options: BenchOptions): string {
  return options.root ?? repoRoot;
}

/** 编号为 n 的步骤目录；没有就跳过这一项 */
export function stepByNumber(root: string, n: number): string {
  const step = listSteps(root).find((s) => stepNumber(s) === n);
  if (step === undefined) throw new BenchSkip(`（step${String(n).padStart(2, "0")} 尚未提供）`);
  return stepDir(root, step);
}

/** 含有 relFile 的最新步骤目录（编号最大的那个） */
export function newestStepWith(root: string, relFile: string): string {
  const step = listSteps(root)
    .reverse()
    .find((s) => fs.existsSync(path.join(stepDir(root, s), ...relFile.split("/"))));
  if (step === undefined) throw new BenchSkip(`（还没有任何步骤提供 ${relFile}）`);
  return stepDir(root, step);
}

/** 按文件路径导入步骤里的模块（pathToFileURL：Windows 的 C:\ 路径不能直接交给 import()） */
export async function importFrom<T>(dir: string, relFile: string): Promise<T> {
  const file = path.join(dir, ...relFile.split("/"));
  if (!fs.existsSync(file)) throw new BenchSkip(`（${path.basename(dir)} 里没有 ${relFile}）`);
  return (await import(pathToFileURL(file).href)) as T;
}

let gcFn: (() => void) | undefined;
/** 强制一次完整 GC，让堆的读数可比；不需要用 --expose-gc 启动 */
export function gc(): void {
  if (gcFn === undefined) {
    v8.setFlagsFromString("--expose-gc");
    gcFn = runInNewContext("gc") as () => void;
  }
  gcFn();
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] ?? NaN) : ((sorted[mid - 1] ?? NaN) + (sorted[mid] ?? NaN)) / 2;
}

export function max(values: readonly number[]): number {
  return values.reduce((a, b) => Math.max(a, b), -Infinity);
}

export const MB = 1024 * 1024;
