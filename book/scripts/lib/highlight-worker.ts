// 高亮的工作线程：每个线程建一个 Shiki 高亮器（只载入代码页用到的语言与主题），
// 收到 { id, code, lang } 就回 { id, html }。几百个代码页的高亮是构建里最重的 CPU 活，分给几个线程做，
// 主线程同时跑 VitePress。由 highlight.ts 启动，不单独运行。
import os from "node:os";
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
  // 高亮不在关键路径上：VitePress 要先等图与会话（Chromium、demo），再单线程地打包。两个高亮线程若与它们平分两个核，
  // VitePress 就晚开始。Linux 上 nice 值是每个线程自己的（setpriority 的 pid 0 = 调用它的线程），把这个线程调低 5 级，
  // 它让着关键路径、用剩下的 CPU（只调 5 级而不是 19：机器忙时它也不至于饿着）。别的系统上 pid 0 指整个进程，不调。
  if (process.platform === "linux") {
    try {
      os.setPriority(Math.min(19, os.getPriority() + 5));
    } catch {
      // 调不了就照常跑
    }
  }
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
