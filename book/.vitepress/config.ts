// VitePress 的配置：源文件是生成器写好的 .gen/（见 scripts/generate.ts），侧边栏与阅读顺序也从它写下的 book-data.json 读。
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitepress";
import { dualTheme, dualThemeTransformer } from "../scripts/lib/dual-theme";
import { escapeHtml } from "../scripts/lib/urls";
import { callouts } from "./callouts";

/** 代码块的高亮结果（见下面 markdown.config），一次构建之内有效 */
const highlighted = new Map<string, string>();

const bookDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const dataFile = path.join(bookDir, ".gen", "book-data.json");
if (!fs.existsSync(dataFile)) throw new Error("没有 .gen/book-data.json：请用 npm run book:build（它先生成源文件再构建）");
const data = JSON.parse(fs.readFileSync(dataFile, "utf8")) as {
  chapters: Array<{ url: string; title: string; file: string; parent?: string; orderNote?: string }>;
  steps: Array<{ url: string; title: string; name: string }>;
  repoPages: Array<{ url: string; title: string }>;
};

export default defineConfig({
  lang: "zh-CN",
  title: "从零搭一个 Agent Harness",
  description: "第 8 章与第 5.6 节：一步一步搭出一个迷你的 coding agent 外壳，每一处引用都由测试核对",
  srcDir: ".gen",
  outDir: "dist",
  cacheDir: ".vitepress/cache",
  cleanUrls: false,
  // 静态页面（代码页等）不是 VitePress 的页面，死链检查由浏览器测试负责爬
  ignoreDeadLinks: [/^\/(code|diff|pi|sessions|figures|static)\//],
  head: [["link", { rel: "icon", href: "data:," }]],
  // 唯一超过 500 KB 的块是搜索索引（约 1.1 MB，gzip 后约 256 KB），只在打开搜索框时才下载
  vite: { build: { chunkSizeWarningLimit: 1500 } },
  markdown: {
    // 浅色、深色只分词一次（scripts/lib/dual-theme.ts）：输出与 theme: { light: "github-light", dark: "github-dark" } 逐字节相同
    theme: dualTheme,
    codeTransformers: [dualThemeTransformer(false, undefined)],
    config(md) {
      md.use(callouts);
      // 搜索索引（本地搜索插件）用另一个 Markdown 渲染器把每一页再渲染一遍，代码块也再高亮一遍：
      // 两个渲染器都经过这里，同一段代码（内容、语言、属性都相同）只高亮一次
      const highlight = md.options.highlight;
      if (highlight) {
        md.options.highlight = (code, lang, attrs) => {
          const key = `${lang}\0${attrs}\0${code}`;
          let html = highlighted.get(key);
          if (html === undefined) {
            html = highlight(code, lang, attrs);
            highlighted.set(key, html);
          }
          return html;
        };
      }
      // 合成主题是「一套」主题，VitePress 因此不给代码块的外框加 vp-adaptive-theme（深色模式的配色靠它）：补上
      const fence = md.renderer.rules.fence;
      if (fence !== undefined) md.renderer.rules.fence = (...args) => fence(...args).replace(/^<div class="language-[^\s"]*/, "$& vp-adaptive-theme");
    },
  },
  themeConfig: {
    siteTitle: "从零搭一个 Agent Harness",
    sidebar: [
      {
        text: "书",
        items: [
          { text: "书的地图", link: "/" },
          // 深入页（docs/deep/）挂在所属章节下面，默认收起；打开它时 VitePress 会自动展开
          ...data.chapters
            .filter((c) => c.parent === undefined)
            .map((c) => {
              const deep = data.chapters.filter((d) => d.parent === c.file).map((d) => ({ text: d.title, link: d.url }));
              // 不按编号排的章节（5.6 在 8.5 之后）：标题下面一行小字，是地图「阅读顺序」里给的理由（侧边栏的 text 按 HTML 显示，要转义）
              const text = c.orderNote === undefined ? c.title : `${c.title}<span class="order-note">${escapeHtml(c.orderNote)}</span>`;
              return deep.length === 0 ? { text, link: c.url } : { text, link: c.url, collapsed: true, items: deep };
            }),
        ],
      },
      { text: "步骤目录", collapsed: false, items: data.steps.map((s) => ({ text: s.title, link: s.url })) },
      { text: "附录：仓库里的说明与调研", collapsed: true, items: data.repoPages.map((p) => ({ text: p.title, link: p.url })) },
    ],
    outline: { level: [2, 3], label: "本页目录" },
    docFooter: { prev: "上一页", next: "下一页" },
    darkModeSwitchLabel: "外观",
    lightModeSwitchTitle: "切换到浅色",
    darkModeSwitchTitle: "切换到深色",
    sidebarMenuLabel: "目录",
    returnToTopLabel: "回到顶部",
    notFound: { title: "页面不存在", quote: "这个地址在书站里没有对应的页面。", linkText: "回到书的地图" },
    search: {
      provider: "local",
      options: {
        translations: {
          button: { buttonText: "搜索", buttonAriaLabel: "搜索" },
          modal: {
            displayDetails: "显示详细列表",
            resetButtonTitle: "清除",
            backButtonTitle: "关闭",
            noResultsText: "没有找到",
            footer: { selectText: "打开", navigateText: "切换", closeText: "关闭" },
          },
        },
        miniSearch: {
          options: {
            // 中文没有空格：默认分词器会把一整句当成一个词。这里用浏览器与 Node 都自带的 Intl.Segmenter 分词，
            // 再给每一段连续的汉字补上所有相邻两字（二元组），「取消点」「扩展宿主」这样的词不管怎么切都能对上。
            // 这个函数会被原样序列化进页面（VitePress 的 serializeFunctions），所以不能引用外面的变量。
            tokenize: (text: string) => {
              const out: string[] = [];
              const han = /[\u3400-\u9fff\uf900-\ufaff]/;
              const seg = new Intl.Segmenter("zh", { granularity: "word" });
              for (const s of seg.segment(text)) {
                if (!s.isWordLike) continue;
                const w = s.segment;
                if (!han.test(w)) {
                  out.push(w);
                  continue;
                }
                if (w.length >= 2) out.push(w);
              }
              for (const run of text.match(/[\u3400-\u9fff\uf900-\ufaff]{2,}/g) ?? []) {
                for (let i = 0; i + 2 <= run.length; i++) out.push(run.slice(i, i + 2));
              }
              return out;
            },
          },
          searchOptions: {
            fuzzy: 0.15,
            prefix: true,
            combineWith: "AND",
            // 标题路径（含本章的一级标题）权重最高：讲某个主题的那一章排在只顺带提到它的章节前面
            boost: { title: 3, text: 1, titles: 6 },
          },
        },
      },
    },
  },
});
