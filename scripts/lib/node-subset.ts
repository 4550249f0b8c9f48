// CI 在 Node 22、24 上只跑的测试子集：.ci/node-subset.txt 里一行一个 vitest include 模式（见那个文件的开头）。
// .ci/vitest.subset.config.ts 用它换掉根目录配置的 include；scripts/test/node-subset.test.ts 核对每个模式都对得上文件。
import fs from "node:fs";
import path from "node:path";

export interface SubsetGroup {
  /** 模式上面那段注释的第一句（到第一个「：」为止），例如「fetch / undici」 */
  label: string;
  patterns: string[];
}

/** 读名单：空行分组，# 开头的行是注释（组名取注释的第一句），其余每行一个模式；文件开头没有模式的注释段不算组 */
export function parseSubset(text: string): SubsetGroup[] {
  const groups: SubsetGroup[] = [];
  let comment: string[] = [];
  let current: SubsetGroup | undefined;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === "") {
      comment = [];
      current = undefined;
    } else if (line.startsWith("#")) {
      comment.push(line.replace(/^#\s?/, ""));
    } else {
      if (current === undefined) {
        current = { label: (comment[0] ?? "（没有说明）").split("：")[0]!.trim(), patterns: [] };
        groups.push(current);
      }
      current.patterns.push(line);
    }
  }
  return groups;
}

export const subsetFile = (root: string): string => path.join(root, ".ci", "node-subset.txt");

export function readSubset(root: string): SubsetGroup[] {
  return parseSubset(fs.readFileSync(subsetFile(root), "utf8"));
}
