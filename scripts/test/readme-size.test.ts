/**
 * 步骤 README 是一屏（DESIGN §2，issue 48 第 8 条）：每个不超过 5,000 字节。
 * 已知局限的表、防线的清单放在章节的深入页（docs/deep/8.N-…），README 里一行链过去。
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

import { FLOORS } from "../lib/floors.ts";
import { repoRoot } from "../lib/paths.ts";
import { listSteps, stepDir } from "../lib/steps.ts";

const STEP_README_MAX_BYTES = 5_000;

/** README 的字节数：按 UTF-8 数（一个汉字三个字节），换行按 LF 算，Windows 上检出成 CRLF 也一样 */
function readmeBytes(text: string): number {
  return Buffer.byteLength(text.replace(/\r\n/g, "\n"), "utf8");
}

describe("步骤 README 一屏读完", () => {
  const steps = listSteps(repoRoot);

  it("找到了全部步骤", () => {
    expect(steps.length).toBeGreaterThanOrEqual(FLOORS.goldenSteps);
  });

  it.each(steps)(`%s/README.md 不超过 ${STEP_README_MAX_BYTES} 字节`, (step) => {
    const bytes = readmeBytes(fs.readFileSync(path.join(stepDir(repoRoot, step), "README.md"), "utf8"));
    expect(bytes, `${step}/README.md 有 ${bytes} 字节：已知局限、防线清单这类细节挪到章节的深入页（docs/deep/），README 里一行链过去`).toBeLessThanOrEqual(STEP_README_MAX_BYTES);
  });

  it("按字节数，不按字符数；CRLF 按 LF 算", () => {
    // 1,700 个汉字只有 1,700 个字符，却是 5,100 字节：超过一屏
    expect(readmeBytes("会".repeat(1_700))).toBe(5_100);
    expect(readmeBytes("会".repeat(1_700))).toBeGreaterThan(STEP_README_MAX_BYTES);
    expect(readmeBytes("a\r\nb\r\n")).toBe(readmeBytes("a\nb\n"));
  });
});
