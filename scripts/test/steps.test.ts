import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mapInOrder } from "../lib/pool.ts";
import { listSteps, resolveStep } from "../lib/steps.ts";
import { makeFixtureRoot, removeFixtureRoot, writeFiles, writeStep } from "./helpers/fixture.ts";

describe("步骤目录", () => {
  let root: string;
  beforeAll(() => {
    root = makeFixtureRoot("steps");
    writeStep(root, "step10-later", {});
    writeStep(root, "step02-messages", {});
    writeStep(root, "step07-abort-extensions", {});
    writeFiles(root, { "labs/mini-agent-harness/README.md": "# 索引\n", "labs/mini-agent-harness/notes/x.txt": "x\n" });
  });
  afterAll(() => removeFixtureRoot(root));

  it("只列 stepNN-名字 目录，按编号排序", () => {
    expect(listSteps(root)).toEqual(["step02-messages", "step07-abort-extensions", "step10-later"]);
  });

  it("接受 7、07、step07 与完整目录名", () => {
    for (const arg of ["7", "07", "step07", "step07-abort-extensions", "labs/mini-agent-harness/step07-abort-extensions/"]) {
      expect(resolveStep(arg, root)).toBe("step07-abort-extensions");
    }
    expect(resolveStep("10", root)).toBe("step10-later");
  });

  it("找不到时用中文列出现有步骤", () => {
    expect(() => resolveStep("3", root)).toThrow(/找不到步骤「3」。可用的步骤：\n  step02-messages\n  step07-abort-extensions\n  step10-later/);
  });

  it("没有 labs 目录时返回空列表", () => {
    expect(listSteps(`${root}-missing`)).toEqual([]);
  });
});

describe("mapInOrder", () => {
  it("并行执行，但按输入顺序回调", async () => {
    const seen: number[] = [];
    const delays = [30, 5, 15, 1];
    let running = 0;
    let peak = 0;
    await mapInOrder(
      delays,
      2,
      async (ms) => {
        running++;
        peak = Math.max(peak, running);
        await new Promise((r) => setTimeout(r, ms));
        running--;
        return ms;
      },
      (r) => seen.push(r),
    );
    expect(seen).toEqual(delays);
    expect(peak).toBe(2);
  });
});
