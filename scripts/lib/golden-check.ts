import fs from "node:fs";
import path from "node:path";
import type { DemoResult } from "./run-demo.ts";
import { stepNumber } from "./steps.ts";
import { crlfToLf } from "./text.ts";
import { unifiedDiff } from "./unified-diff.ts";

export const GOLDEN_FILE = "expected-output.txt";

export interface StepVerdict {
  step: string;
  ok: boolean;
  /** 失败原因（中文短句），成功时没有 */
  reason?: string;
  /** 输出与 golden 不同时的统一 diff */
  diff?: string;
  result: DemoResult;
}

export function readGolden(stepDir: string): string | undefined {
  const file = path.join(stepDir, GOLDEN_FILE);
  return fs.existsSync(file) ? crlfToLf(fs.readFileSync(file, "utf8")) : undefined;
}

/** EXPECTED = golden 文件，ACTUAL = demo 的 stdout；两边都只把 CRLF 换成 LF（与步骤的 golden 测试相同） */
export function goldenDiff(expected: string, actual: string, color = false): string {
  return unifiedDiff("EXPECTED (expected-output.txt)", "ACTUAL (demo stdout)", crlfToLf(expected), crlfToLf(actual), { color });
}

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}` : (ms / 1000).toFixed(1);
}

/** 根据一次 demo 运行结果判定成败。stderr 只展示、从不参与比较。 */
export function judge(step: string, stepDir: string, result: DemoResult, timeoutMs: number, color = false): StepVerdict {
  const expected = readGolden(stepDir);
  const diff = expected === undefined ? "" : goldenDiff(expected, result.stdout, color);
  const verdict: StepVerdict = { step, ok: false, result };
  if (diff !== "") verdict.diff = diff;

  if (result.spawnError !== undefined) {
    verdict.reason = result.spawnError;
  } else if (result.timedOut) {
    verdict.reason = `超时：运行超过 ${seconds(timeoutMs)} 秒仍未结束，已强制终止；可用环境变量 DEMO_TIMEOUT_MS 调整`;
  } else if (result.exitCode !== 0) {
    verdict.reason =
      result.exitCode === null ? `demo 被信号 ${result.signal ?? "?"} 终止` : `demo 异常退出，退出码 ${result.exitCode}`;
  } else if (expected === undefined) {
    verdict.reason = `缺少 ${GOLDEN_FILE}，先运行 npm run golden:update -- ${stepNumber(step) ?? step}`;
  } else if (diff !== "") {
    verdict.reason = `输出与 ${GOLDEN_FILE} 不一致`;
  } else {
    verdict.ok = true;
  }
  return verdict;
}
