// 代码页、差异页、Pi 源码页：几百个只有一段代码的页面，直接写成静态 HTML（不经过 VitePress 的 Vue 打包，
// 构建快得多），与书站共用颜色；页面只加载同站的 /static/code.css 与 /static/code.js。
import fs from "node:fs";
import path from "node:path";
import { escapeHtml } from "./urls.ts";

export interface Crumb {
  text: string;
  href?: string;
}

export interface StaticPage {
  title: string;
  crumbs: Crumb[];
  /** 「返回」的默认去处（没有 referrer 时） */
  back: string;
  /** 页头下面的一行说明（已是 HTML） */
  meta?: string;
  /** 高亮好的 <pre class="shiki"> */
  body: string;
}

export function renderStaticPage(page: StaticPage): string {
  const crumbs = page.crumbs
    .map((c) => (c.href === undefined ? `<span>${escapeHtml(c.text)}</span>` : `<a href="${escapeHtml(c.href)}">${escapeHtml(c.text)}</a>`))
    .join('<span class="sep">›</span>');
  return `<!doctype html>
<html lang="zh-CN">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(page.title)}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/static/code.css">
</head>
<body>
<header class="bar"><nav class="crumbs">${crumbs}</nav><a id="back" class="back" href="${escapeHtml(page.back)}">← 返回</a></header>
${page.meta === undefined ? "" : `<div class="meta">${page.meta}</div>\n`}<main>${page.body}</main>
<script src="/static/code.js"></script>
</body>
</html>
`;
}

/** 写一个静态页面；url 是站内网址（/code/…），outDir 是 public/ */
export function writeStaticPage(publicDir: string, url: string, html: string): void {
  const rel = decodeURIComponent(url.replace(/#.*$/, "")).replace(/^\//, "");
  const file = path.join(publicDir, ...rel.split("/"));
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, html);
}
