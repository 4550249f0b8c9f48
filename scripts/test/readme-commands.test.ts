/**
 * 每个步骤 README 的「命令（在本目录里）」一节只列在那个目录里真能运行的命令：
 * 表里写的 npm start / npm test / npm run <名字>，步骤的 package.json 里都要有对应的脚本。
 * （以前 step07 的表里列着 npm run exercise -- 7，在步骤目录里运行只得到 Missing script。）
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

import { repoRoot } from "../lib/paths.ts";
import { listSteps, stepDir } from "../lib/steps.ts";

/** README 里「**命令**」开头的那一段（表格或一段文字），直到下一个空行之后不再是表格的地方。 */
function commandSection(readme: string): string {
  const lines = readme.split("\n");
  const start = lines.findIndex((line) => line.startsWith("**命令**"));
  if (start < 0) return "";
  const section = [lines[start] ?? ""];
  for (const line of lines.slice(start + 1)) {
    if (line.trim() === "" && section.some((row) => row.startsWith("|"))) break;
    if (line.trim() === "" || line.startsWith("|")) section.push(line);
    else break;
  }
  return section.join("\n");
}

/** 一段文字里出现的 npm 脚本名：npm start → start，npm test → test，npm run x → x。 */
function scriptsNamed(text: string): string[] {
  const names = [...text.matchAll(/`npm (start|test|run(?: --silent)? ([\w:-]+))/g)].map((match) => match[2] ?? match[1] ?? "");
  return [...new Set(names)];
}

describe("步骤 README 的命令表", () => {
  const steps = listSteps(repoRoot);

  it.each(steps)("%s：表里的每条命令在本目录里都有对应的脚本", (step) => {
    const dir = stepDir(repoRoot, step);
    const section = commandSection(fs.readFileSync(path.join(dir, "README.md"), "utf8"));
    expect(section, "README 里要有「**命令**」一节").toContain("npm start");
    const scripts = Object.keys((JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts);
    expect(scriptsNamed(section).filter((name) => !scripts.includes(name))).toEqual([]);
  });

  it("有练习的步骤都在表里列出 npm run exercise，脚本替学习者带上练习编号", () => {
    const withExercise = steps.filter((step) => Number(step.slice(4, 6)) >= 2);
    expect(withExercise.length).toBeGreaterThanOrEqual(8);
    for (const step of withExercise) {
      const dir = stepDir(repoRoot, step);
      const { scripts } = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8")) as { scripts: Record<string, string> };
      expect(scripts.exercise, step).toBe(`node repo-tools.cjs exercise ${Number(step.slice(4, 6))}`);
      expect(scriptsNamed(commandSection(fs.readFileSync(path.join(dir, "README.md"), "utf8"))), step).toContain("exercise");
    }
  });

  it("README 与深入页引用的 npm 提示行，就是 npm 照 package.json 打印的那一行（> 加上脚本原文）", () => {
    // npm run demo 先打印「> 包名@版本 demo」与「> 脚本原文」：照抄书上的命令重定向到文件时多出的就是它们
    const dir = stepDir(repoRoot, "step07-abort-extensions");
    const { name, version, scripts } = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8")) as { name: string; version: string; scripts: Record<string, string> };
    for (const file of [path.join(dir, "README.md"), path.join(repoRoot, "docs", "deep", "8.5-hardening.md")]) {
      const text = fs.readFileSync(file, "utf8");
      expect(text, file).toContain(`\`> ${name}@${version} demo\``);
      expect(text, file).toContain(`\`> ${scripts.demo}\``);
    }
  });

  it("找命令的办法本身查得出缺了的脚本", () => {
    expect(scriptsNamed("| `npm run exercise -- 7` | x |\n| `npm start -- --extension a.ts` | y |\n`npm test`")).toEqual(["exercise", "start", "test"]);
  });
});
