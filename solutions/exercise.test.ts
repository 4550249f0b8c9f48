/**
 * 练习检查器与参考答案：答案必须通过检查器；几种典型的错误写法必须被检查器指出来，并带提示。
 * 每个用例在 step07 的一份临时副本里进行，不动仓库里的文件。
 */

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

import { checkExercise07, formatResults } from "../scripts/lib/exercise-07.ts";

const here = path.dirname(fileURLToPath(import.meta.url));
const step07 = path.resolve(here, "..", "labs", "mini-agent-harness", "step07-abort-extensions");
const solution = path.join(here, "step07-abort-extensions");

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "exercise-07-"));
  for (const name of ["src", "extensions"]) fs.cpSync(path.join(step07, name), path.join(dir, name), { recursive: true });
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

/** 按参考答案的做法，把两条规则插到 upper 规则之后。 */
function addRules(snippet = fs.readFileSync(path.join(solution, "rules-to-add.txt"), "utf8")): void {
  const file = path.join(dir, "src", "rules.ts");
  const source = fs.readFileSync(file, "utf8");
  const anchor = '  { on: "toolResult:upper", reply: okOrError("转好了。") },\n';
  expect(source).toContain(anchor);
  fs.writeFileSync(file, source.replace(anchor, anchor + snippet));
}
const writeExtension = (source: string): void => fs.writeFileSync(path.join(dir, "extensions", "reverse.ts"), source);
const solutionSource = (): string => fs.readFileSync(path.join(solution, "extensions", "reverse.ts"), "utf8");
const failed = (results: Awaited<ReturnType<typeof checkExercise07>>) => results.filter((result) => !result.ok);

describe("练习检查器（第 8.5 章）", () => {
  it("参考答案通过全部检查", async () => {
    writeExtension(solutionSource());
    addRules();
    const results = await checkExercise07(dir);
    expect(failed(results), formatResults(results)).toEqual([]);
    expect(results.length).toBeGreaterThanOrEqual(6);
  });

  it("刚检出的仓库：缺文件，给出提示", async () => {
    const results = await checkExercise07(dir);
    expect(failed(results)[0]).toMatchObject({ name: "extensions/reverse.ts 存在", hint: expect.stringContaining("extensions/logger.ts") });
  });

  it("没有默认导出：指出来", async () => {
    writeExtension(solutionSource().replace("export default function", "export function"));
    const [problem] = failed(await checkExercise07(dir));
    expect(problem?.hint).toContain("export default");
  });

  it("工具名写错：指出注册表里有什么", async () => {
    writeExtension(solutionSource().replace('name: "reverse"', 'name: "reverse_text"'));
    const [problem] = failed(await checkExercise07(dir));
    expect(problem?.name).toBe("注册了名为 reverse 的工具");
    expect(problem?.detail).toContain("reverse_text");
  });

  it("结果不对：给出实际结果和提示", async () => {
    writeExtension(solutionSource().replace('[...(args.text as string)].reverse().join("")', '(args.text as string).toUpperCase()'));
    const [problem] = failed(await checkExercise07(dir));
    expect(problem?.detail).toContain("ABCDEF");
    expect(problem?.hint).toContain("reverse()");
  });

  it("扩展对了但没加规则：提示去改 src/rules.ts", async () => {
    writeExtension(solutionSource());
    const [problem] = failed(await checkExercise07(dir));
    expect(problem?.hint).toContain("src/rules.ts");
    expect(problem?.detail).toBe("假模型没有发起任何工具调用");
  });

  it("只加了调用规则、没加收尾规则：提示 toolResult:reverse", async () => {
    writeExtension(solutionSource());
    addRules(fs.readFileSync(path.join(solution, "rules-to-add.txt"), "utf8").split("\n").slice(0, 5).join("\n") + "\n");
    const [problem] = failed(await checkExercise07(dir));
    expect(problem?.hint).toContain("toolResult:reverse");
  });

  it("扩展崩溃的观察者拖不垮宿主（练习第 5 步）", async () => {
    writeExtension(solutionSource().replace("pi.registerTool({", 'pi.onEvent((event) => { if (event.type === "tool_call") throw new Error("我崩了"); });\n  pi.registerTool({'));
    addRules();
    const results = await checkExercise07(dir);
    expect(failed(results), formatResults(results)).toEqual([]);
  });
});
