// 四种提示框：章节里写成以「**📘 概念　标题**」开头的引用块（在 GitHub 上就是一段带标签的引用，照样好读），
// 书站给这样的引用块加上 class，由 theme/style.css 画成带颜色的框。
import type { MarkdownRenderer } from "vitepress";

const KINDS: Array<[RegExp, string]> = [
  [/^\*\*📘\s*概念/u, "concept"],
  [/^\*\*⚠\uFE0F?\s*常见误解/u, "misconception"],
  [/^\*\*🌱\s*初学者提示/u, "beginner"],
  [/^\*\*🛠\uFE0F?\s*实践任务/u, "practice"],
];

export function callouts(md: MarkdownRenderer): void {
  md.core.ruler.after("block", "book-callouts", (state) => {
    const tokens = state.tokens;
    for (let i = 0; i < tokens.length; i++) {
      const open = tokens[i];
      if (open?.type !== "blockquote_open") continue;
      const inline = tokens[i + 2];
      if (tokens[i + 1]?.type !== "paragraph_open" || inline?.type !== "inline") continue;
      const kind = KINDS.find(([re]) => re.test(inline.content.trimStart()))?.[1];
      if (kind !== undefined) open.attrJoin("class", `callout callout-${kind}`);
    }
    return true;
  });
}
