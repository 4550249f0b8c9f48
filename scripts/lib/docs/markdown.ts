import { normalizeEol } from "../text.ts";

/** 围栏代码块：fenceLine 是开头 ``` 所在行（从 1 开始），content 已去掉围栏的缩进 */
export interface FencedBlock {
  fenceLine: number;
  closeLine: number | undefined;
  info: string;
  content: string[];
}

export interface ParsedChapter {
  lines: string[];
  /** front matter 的内容行：[行号, 文本]；没有 front matter 时为空 */
  frontMatter: Array<[number, string]>;
  blocks: FencedBlock[];
  /** 代码块与 front matter 之外的正文行：[行号, 文本] */
  prose: Array<[number, string]>;
}

const FENCE_OPEN = /^(\s*)(`{3,}|~{3,})(.*)$/;

function stripIndent(line: string, indent: number): string {
  let i = 0;
  while (i < indent && i < line.length && line[i] === " ") i++;
  return line.slice(i);
}

/** 极简 Markdown 切分：只认 front matter 与围栏代码块，其余都算正文 */
export function parseChapter(text: string): ParsedChapter {
  const lines = normalizeEol(text).split("\n");
  const frontMatter: Array<[number, string]> = [];
  const blocks: FencedBlock[] = [];
  const prose: Array<[number, string]> = [];

  let i = 0;
  if (lines[0]?.trimEnd() === "---") {
    const end = lines.findIndex((l, idx) => idx > 0 && /^(---|\.\.\.)\s*$/.test(l));
    if (end > 0) {
      for (let k = 1; k < end; k++) frontMatter.push([k + 1, lines[k] ?? ""]);
      i = end + 1;
    }
  }

  while (i < lines.length) {
    const line = lines[i] ?? "";
    const open = FENCE_OPEN.exec(line);
    // 反引号围栏的 info 里不能再有反引号（CommonMark 规则），否则只是行内代码
    if (open === null || (open[2]?.startsWith("`") === true && (open[3] ?? "").includes("`"))) {
      prose.push([i + 1, line]);
      i++;
      continue;
    }
    const indent = (open[1] ?? "").length;
    const fence = open[2] ?? "```";
    const close = new RegExp(`^\\s*${fence[0] === "`" ? "`" : "~"}{${fence.length},}\\s*$`);
    const block: FencedBlock = { fenceLine: i + 1, closeLine: undefined, info: (open[3] ?? "").trim(), content: [] };
    i++;
    while (i < lines.length) {
      const inner = lines[i] ?? "";
      if (close.test(inner)) {
        block.closeLine = i + 1;
        i++;
        break;
      }
      block.content.push(stripIndent(inner, indent));
      i++;
    }
    blocks.push(block);
  }
  return { lines, frontMatter, blocks, prose };
}
