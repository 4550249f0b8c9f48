// 代码页、差异页、Pi 源码页的语法高亮：Shiki（VitePress 自己用的同一个），结果按内容哈希缓存。
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { createHighlighter, type Highlighter } from "shiki";
import { CACHE_DIR } from "./paths.ts";

const LANGS = ["typescript", "tsx", "javascript", "json", "markdown", "yaml", "shellscript", "diff"] as const;
const THEMES = { light: "github-light", dark: "github-dark" } as const;
// 缓存键里带上这个版本号：改了下面的输出格式就换一个，旧缓存自动作废
const FORMAT = "v1";

export function langOf(file: string): string {
  const ext = path.extname(file).toLowerCase();
  const map: Record<string, string> = {
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "tsx",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".json": "json",
    ".md": "markdown",
    ".yml": "yaml",
    ".yaml": "yaml",
    ".sh": "shellscript",
    ".diff": "diff",
  };
  return map[ext] ?? "text";
}

let highlighter: Promise<Highlighter> | undefined;
let hits = 0;
let misses = 0;

export function cacheStats(): { hits: number; misses: number } {
  return { hits, misses };
}

/** 把一个文件高亮成 <pre class="shiki">…</pre>；每一行是 <span class="line" id="L行号" data-line="行号"> */
export async function highlight(code: string, lang: string): Promise<string> {
  const key = crypto.createHash("sha256").update(`${FORMAT}\0${lang}\0${code}`).digest("hex");
  const file = path.join(CACHE_DIR, "shiki", `${key}.html`);
  if (fs.existsSync(file)) {
    hits++;
    return fs.readFileSync(file, "utf8");
  }
  misses++;
  highlighter ??= createHighlighter({ themes: Object.values(THEMES), langs: [...LANGS] });
  const h = await highlighter;
  // 很大的文件（锁文件之类）不上色，只编号：Shiki 在几十万字符上会很慢
  const effective = code.length > 200_000 ? "text" : lang;
  const html = h.codeToHtml(code, {
    lang: effective,
    themes: THEMES,
    defaultColor: "light",
    transformers: [
      {
        line(node, line) {
          node.properties.id = `L${line}`;
          node.properties["data-line"] = String(line);
        },
      },
    ],
  });
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, html);
  return html;
}
