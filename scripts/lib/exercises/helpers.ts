/**
 * 各个练习检查器共用的小工具：加载学习者的模块、比较结果、给结果限时。
 */

import path from "node:path";
import { pathToFileURL } from "node:url";
import { inspect, isDeepStrictEqual } from "node:util";

import { describeMismatch, LONG_VALUE } from "./mismatch.ts";
import type { Check } from "./types.ts";

export const errorText = (error: unknown): string => (error instanceof Error ? error.message : String(error)).split("\n")[0] ?? "";

/**
 * 给人看的值：字符串加引号并转义（半个 emoji 会显示成 \ud83d，一眼就能看出被拆坏了）。
 * JSON 表达不了的值（NaN、undefined 的属性、-0……）改用 util.inspect，免得 [NaN] 和 [null] 看上去一样。
 */
export function show(value: unknown): string {
  if (value === undefined) return "undefined";
  if (typeof value === "function") return "一个函数";
  try {
    const json = JSON.stringify(value);
    if (json !== undefined && isDeepStrictEqual(JSON.parse(json), value)) return json;
  } catch {
    // 有环、有 BigInt：交给 inspect
  }
  return inspect(value, { depth: 6, breakLength: Infinity, sorted: true });
}

/** 动态导入步骤里的一个模块。路径转成 file:// URL，Windows 上也对。 */
export async function importFrom<T>(stepDir: string, relative: string): Promise<T> {
  return (await import(pathToFileURL(path.join(stepDir, relative)).href)) as T;
}

/**
 * 加载学习者写的模块，并取出指定名字的导出。
 * 失败时返回一项不通过的检查（说明是语法错、缺导出还是导出的类型不对），调用方据此提前结束。
 */
export async function loadExport<T>(
  stepDir: string,
  file: string,
  exportName: string,
  kind: "function" | "object",
): Promise<{ value: T; check: Check } | { value?: undefined; check: Check }> {
  const name = `${file} 能被加载，并导出 ${exportName}`;
  let module: Record<string, unknown>;
  try {
    module = await importFrom<Record<string, unknown>>(stepDir, file);
  } catch (error) {
    return { check: { name, ok: false, saw: `加载时出错：${errorText(error)}` } };
  }
  const value = module[exportName];
  const actual = value === null ? "null" : Array.isArray(value) ? "array" : typeof value;
  const wanted = kind === "object" ? ["object", "array"] : ["function"];
  if (!wanted.includes(actual)) {
    const exported = Object.keys(module).join("、") || "（没有任何导出）";
    return { check: { name, ok: false, saw: value === undefined ? `没有名为 ${exportName} 的导出；现有导出：${exported}` : `${exportName} 是 ${actual}，应当是 ${kind === "function" ? "函数" : "对象"}` } };
  }
  return { value: value as T, check: { name, ok: true } };
}

/**
 * 比较一个结果；不相等时记下看到的与期望的。
 * 严格比较（node:util 的 isDeepStrictEqual）：[NaN] 不等于 [null]，{ y: undefined } 不等于 {}，属性的次序不要紧。
 */
export function same(name: string, actual: unknown, expected: unknown): Check {
  const ok = isDeepStrictEqual(actual, expected);
  if (ok) return { name, ok };
  const saw = show(actual);
  const wanted = show(expected);
  if (saw.length <= LONG_VALUE && wanted.length <= LONG_VALUE) return { name, ok, saw, expected: wanted };
  // 长值只打印第一处不同的前后：两边都是字符串时按原字符串算下标，否则按显示出来的文字算
  const raw = typeof actual === "string" && typeof expected === "string";
  const mismatch = raw ? describeMismatch(actual, expected, true) : describeMismatch(saw, wanted, false);
  return mismatch ? { name, ok, saw: mismatch.saw, expected: mismatch.expected, diff: mismatch.where } : { name, ok, saw, expected: wanted };
}

export { isDeepStrictEqual };

/** 断言一个条件；不成立时记下看到了什么。 */
export function expectThat(name: string, ok: boolean, saw: string, expected?: string): Check {
  return ok ? { name, ok } : { name, ok, saw, ...(expected !== undefined ? { expected } : {}) };
}

export class DeadlineError extends Error {}

/**
 * 给学习者的代码一个宽松的时限：写错的代码可能永远不结束，检查器不能跟着卡住。
 * 这只是安全网（正常情况下每个用例都在毫秒级结束），判断对错从不依赖它。
 */
export async function withDeadline<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DeadlineError(`${what}：${ms / 1000} 秒内没有结束`)), ms);
    timer.unref();
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** 正在跑的用例，一层套一层；检查进程把最里面那一项告诉父进程，卡死时报告卡在哪一项（worker.ts）。 */
const running: string[] = [];
let onCase: ((name: string | undefined) => void) | undefined;
export function followCases(listener: (name: string | undefined) => void): void {
  onCase = listener;
}

/** 运行一个用例：它抛出的异常（包括超时）变成一项失败的检查，而不是让检查器崩溃。 */
export async function attempt(name: string, run: () => Promise<Check | Check[]>, ms = 10_000): Promise<Check[]> {
  running.push(name);
  onCase?.(name);
  try {
    const result = await withDeadline(run(), ms, "没有结束");
    return Array.isArray(result) ? result : [result];
  } catch (error) {
    const saw = error instanceof DeadlineError ? `${ms / 1000} 秒内没有结束（可能在等一个永远不会来的事件）` : `抛出了异常：${errorText(error)}`;
    return [{ name, ok: false, saw }];
  } finally {
    running.splice(running.lastIndexOf(name), 1);
    onCase?.(running.at(-1));
  }
}
