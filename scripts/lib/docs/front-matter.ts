/** front matter 里声明的步骤，以及声明所在的行号（报错时指过去） */
export interface ChapterSteps {
  steps: Array<{ name: string; line: number }>;
}

function unquote(s: string): string {
  return s.trim().replace(/^["']|["']$/g, "").trim();
}

/**
 * 手写的最小解析：只认 `step: x`、`steps: [a, b]` 和
 * `steps:` 下面跟 `  - a` 的列表形式，不引入 YAML 依赖。
 */
export function readChapterSteps(frontMatter: Array<[number, string]>): ChapterSteps {
  const steps: ChapterSteps["steps"] = [];
  let inList = false;
  for (const [line, raw] of frontMatter) {
    const text = raw.replace(/\s+#.*$/, "");
    const key = /^(step|steps)\s*:\s*(.*)$/.exec(text);
    if (key !== null) {
      const value = (key[2] ?? "").trim();
      inList = value === "";
      const items = value.startsWith("[") ? value.replace(/^\[|\]$/g, "").split(",") : value === "" ? [] : [value];
      for (const item of items) {
        const name = unquote(item);
        if (name !== "") steps.push({ name, line });
      }
      continue;
    }
    const dash = /^\s+-\s*(.+)$/.exec(text);
    if (inList && dash !== null) {
      steps.push({ name: unquote(dash[1] ?? ""), line });
      continue;
    }
    inList = false;
  }
  return { steps };
}
