// 高亮的工作线程：每个线程建一个 Shiki 高亮器（只载入代码页用到的语言与主题），
// 收到 { id, code, lang } 就回 { id, html }。几百个代码页的高亮是构建里最重的 CPU 活，分给几个线程做，
// 主线程同时跑 VitePress。由 highlight.ts 启动，不单独运行。
import { parentPort } from "node:worker_threads";
import { createHighlighter } from "shiki";
import { dualTheme, dualThemeTransformer, THEMES } from "./dual-theme.ts";

export const LANGS = ["typescript", "tsx", "javascript", "json", "markdown", "yaml", "shellscript", "diff"] as const;

export interface Job {
  id: number;
  code: string;
  lang: string;
}
export type Reply = { id: number; html: string } | { id: number; error: string };

const port = parentPort;
if (port !== null) {
  const highlighter = createHighlighter({ themes: [...Object.values(THEMES), dualTheme], langs: [...LANGS] }).then((h) => {
    // 双主题时 <pre> 上的样式（背景与前景各两套）：取自真正的两套主题，纯文本不分词
    const preStyle = /<pre[^>]*style="([^"]*)"/.exec(h.codeToHtml("", { lang: "text", themes: THEMES, defaultColor: "light" }))?.[1];
    return { h, dual: dualThemeTransformer("light", preStyle) };
  });
  port.on("message", (job: Job) => {
    void highlighter
      .then(({ h, dual }) => {
        // 很大的文件（锁文件之类）不上色，只编号：Shiki 在几十万字符上会很慢
        const lang = job.code.length > 200_000 ? "text" : job.lang;
        const html = h.codeToHtml(job.code, {
          lang,
          // 浅色、深色只分词一次（dual-theme.ts）：输出与 themes: THEMES, defaultColor: "light" 逐字节相同
          theme: dualTheme.name as string,
          // 不限每行的分词时间（默认 500 毫秒，机器忙时会超时，那一行剩下的部分就没有颜色）：输出与机器快慢无关
          tokenizeTimeLimit: 0,
          transformers: [
            {
              line(node, line) {
                node.properties.id = `L${line}`;
                node.properties["data-line"] = String(line);
              },
            },
            dual,
          ],
        });
        port.postMessage({ id: job.id, html } satisfies Reply);
      })
      .catch((error: unknown) => port.postMessage({ id: job.id, error: String((error as Error)?.stack ?? error) } satisfies Reply));
  });
}
