import { createTwoFilesPatch } from "diff";
import { paint } from "./color.ts";

export interface DiffOptions {
  color?: boolean;
  /** 上下文行数，默认 3 */
  context?: number;
}

/**
 * 用 jsdiff 生成统一 diff（去掉 jsdiff 自带的 "====" 分隔行），可选上色。
 * 两边内容相同时返回空字符串。
 */
export function unifiedDiff(oldLabel: string, newLabel: string, oldText: string, newText: string, options: DiffOptions = {}): string {
  if (oldText === newText) return "";
  const patch = createTwoFilesPatch(oldLabel, newLabel, oldText, newText, undefined, undefined, {
    context: options.context ?? 3,
  });
  const lines = patch.split("\n").filter((l) => !/^=+$/.test(l));
  // jsdiff 像 git 一样把含空格或非 ASCII 字符的文件名加引号并转义（"\346\227\247 …"）：
  // 表头换回原样的标签，中文才读得懂
  const oldHeader = lines.findIndex((l) => l.startsWith("--- "));
  if (oldHeader >= 0) lines[oldHeader] = `--- ${oldLabel}`;
  const newHeader = lines.findIndex((l) => l.startsWith("+++ "));
  if (newHeader >= 0) lines[newHeader] = `+++ ${newLabel}`;
  while (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  const p = paint(options.color ?? false);
  return lines
    .map((l) => {
      if (l.startsWith("---") || l.startsWith("+++")) return p.bold(l);
      if (l.startsWith("@@")) return p.cyan(l);
      if (l.startsWith("+")) return p.green(l);
      if (l.startsWith("-")) return p.red(l);
      return l;
    })
    .join("\n");
}
