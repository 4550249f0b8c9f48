import path from "node:path";

// 每一步在 README 里写明读文件的顺序（本章的想法在前，防线、随之改动、测试在后）：
//
//   **阅读顺序**（`npm run diff` 与书站的步骤页按这个顺序列文件）
//
//   1. 本章的想法：`src/sse.ts`、`src/providers/`
//   2. 防线：`src/extension-*.ts`
//   3. 测试：`test/`
//
// 一个文件归第一个匹配它的组；哪组都不匹配的，落到默认组（src/、其他文件、测试），测试总在最后。

export interface ReadingGroup {
  title: string;
  /** `src/x.ts`（就是这个文件）、`src/providers/`（这个目录下的全部）、`src/session-*.ts`（* 不跨目录，** 跨） */
  patterns: string[];
}

export interface GroupedFiles {
  title: string;
  files: string[];
}

export const SECTION_MARK = "**阅读顺序**";

// 每一步都会改到的文件：变化是预期内的「噪音」，照样列出，但排在它那一组的最后
const NOISE = new Set(["package.json", "README.md", "expected-output.txt"]);

export function isNoise(file: string): boolean {
  return NOISE.has(path.posix.basename(file));
}

/** README 里的阅读顺序；没有这一节时是空数组（全部落到默认组） */
export function parseReadingOrder(readme: string | undefined): ReadingGroup[] {
  if (readme === undefined) return [];
  const lines = readme.replace(/\r\n?/g, "\n").split("\n");
  const start = lines.findIndex((l) => l.startsWith(SECTION_MARK));
  if (start < 0) return [];
  const groups: ReadingGroup[] = [];
  for (const line of lines.slice(start + 1)) {
    const m = /^\d+\.\s+([^：:`]+)[：:](.*)$/.exec(line);
    if (m === null) {
      // 列表之前的空行可以有；列表开始之后，第一个不是条目的行就是这一节的结尾
      if (groups.length > 0 || line.trim() !== "") break;
      continue;
    }
    const patterns = [...(m[2] ?? "").matchAll(/`([^`\s]+)`/g)].map((p) => p[1] ?? "");
    groups.push({ title: (m[1] ?? "").trim(), patterns });
  }
  return groups;
}

function toRegExp(pattern: string): RegExp {
  if (pattern.endsWith("/")) return new RegExp(`^${escape(pattern)}`);
  const body = pattern
    .split("**")
    .map((part) => part.split("*").map(escape).join("[^/]*"))
    .join(".*");
  return new RegExp(`^${body}$`);
}

function escape(s: string): string {
  return s.replace(/[.+?^${}()|[\]\\]/g, "\\$&");
}

/** 文件归哪一组、组里第几个模式（排序用）；都不匹配时 undefined */
export function matchGroup(file: string, groups: ReadingGroup[]): { group: number; pattern: number } | undefined {
  for (const [g, group] of groups.entries()) {
    for (const [p, pattern] of group.patterns.entries()) {
      if (toRegExp(pattern).test(file)) return { group: g, pattern: p };
    }
  }
  return undefined;
}

/** 没写阅读顺序的文件落到这三组：src/ 是这一章的代码，其次其他文件，测试最后 */
export const DEFAULT_TITLES = { src: "src/", other: "其他文件", test: "测试" } as const;

export function defaultGroupOf(file: string): keyof typeof DEFAULT_TITLES {
  if (file.startsWith("src/")) return "src";
  if (file.startsWith("test/")) return "test";
  return "other";
}

/** 按阅读顺序分组：声明的组在前（组内按模式的先后，再按路径），默认组在后，测试最后；噪音排在各组最后；空组不出现 */
export function groupFiles(files: string[], groups: ReadingGroup[]): GroupedFiles[] {
  const declared = groups.map((g) => ({ title: g.title, files: [] as { file: string; key: string }[] }));
  const fallback = Object.values(DEFAULT_TITLES).map((title) => ({ title, files: [] as { file: string; key: string }[] }));
  for (const file of files) {
    const hit = matchGroup(file, groups);
    const noise = isNoise(file) ? 1 : 0;
    if (hit !== undefined) {
      declared[hit.group]?.files.push({ file, key: `${noise}${String(hit.pattern).padStart(4, "0")}${file}` });
    } else {
      // 默认组与某个声明的组同名（比如都叫「其他文件」）时并进那一组，不出现两个同名的组
      const title = DEFAULT_TITLES[defaultGroupOf(file)];
      const target = declared.find((g) => g.title === title) ?? fallback.find((g) => g.title === title);
      target?.files.push({ file, key: `${noise}9999${file}` });
    }
  }
  // 测试总在最后：没写到的 src/、其他文件排在「测试」组之前
  const all = [...declared, ...fallback];
  const isTest = (g: { title: string }) => g.title === DEFAULT_TITLES.test;
  return [...all.filter((g) => !isTest(g)), ...all.filter(isTest)]
    .filter((g) => g.files.length > 0)
    .map((g) => ({ title: g.title, files: g.files.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)).map((f) => f.file) }));
}
