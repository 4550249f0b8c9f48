import fs from "node:fs";
import path from "node:path";
import { walkFiles } from "./walk-files.ts";

/**
 * 一个意思只用一个词：程序的输出、代码注释和书里的正文都一样。
 * 左边是不再使用的说法，右边是统一后的说法；要加新的一对，加在这里。
 */
export const TERMS: Array<{ avoid: RegExp; use: string; why: string }> = [
  { avoid: /turn\s*层/gi, use: "回合层", why: "8.7 与程序输出都叫回合层（Pi 的 turn 一级重试）" },
  { avoid: /assistant\s*消息/g, use: "助手消息", why: "各章都叫助手消息；代码里的 role 值照旧写 `assistant`" },
];

export interface TermProblem {
  file: string;
  line: number;
  found: string;
  use: string;
}

// 检查这些地方：书、步骤与服务器包（源码、测试、README、golden）、研究笔记、仓库说明、脚本与参考答案
const ROOTS = ["docs", "labs", "research", "scripts", "solutions"];
const TOP_FILES = ["README.md", "README.en.md", "TESTING.md"];
const EXT = /\.(md|ts|txt)$/;
// research/.pi-src 是 Pi 的原始源码，不归我们管
const SKIP = /(^|\/)\.pi-src\//;

export function checkTerms(root: string): TermProblem[] {
  const files = [
    ...TOP_FILES.filter((f) => fs.existsSync(path.join(root, f))),
    ...ROOTS.flatMap((dir) => walkFiles(path.join(root, dir)).map((f) => `${dir}/${f}`)),
  ].filter((f) => EXT.test(f) && !SKIP.test(f) && f !== "scripts/lib/terms.ts" && f !== "scripts/test/terms.test.ts");
  const problems: TermProblem[] = [];
  for (const file of files) {
    const lines = fs.readFileSync(path.join(root, file), "utf8").split(/\r?\n/);
    lines.forEach((text, i) => {
      for (const term of TERMS) {
        for (const m of text.matchAll(term.avoid)) problems.push({ file, line: i + 1, found: m[0], use: term.use });
      }
    });
  }
  return problems;
}
