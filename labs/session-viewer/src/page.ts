/**
 * 拼出一个自包含的 HTML 文件：样式、脚本、数据都在里面，不引用任何外部资源。
 *
 * 安全靠构造，而不是靠过滤：
 *   - 会话内容只以 JSON 的形式放进 <script type="application/json">，其中每个 < 都写成 \u003c，
 *     所以 </script>、<!-- 这些字样不可能提前结束这个块；浏览器也不会执行 application/json；
 *   - 页面脚本只用 textContent 把内容放进 DOM，从不用 innerHTML，<script>、onerror= 都只是文字；
 *   - CSP 只放行本页这一段脚本和这一段样式（按 sha256），其余一律不许加载，连图片、字体也不许。
 */
import crypto from "node:crypto";
import fs from "node:fs";
import type { ViewModel } from "./model.ts";

const pageScript = fs.readFileSync(new URL("./page.js", import.meta.url), "utf8");
const pageStyle = fs.readFileSync(new URL("./page.css", import.meta.url), "utf8");

const sha256 = (text: string) => `'sha256-${crypto.createHash("sha256").update(text, "utf8").digest("base64")}'`;

export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  `script-src ${sha256(pageScript)}`,
  `style-src ${sha256(pageStyle)}`,
  "img-src 'none'",
  "font-src 'none'",
  "connect-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join("; ");

/** 放进 HTML 属性或文字里的字符串：五个特殊字符全部转义。 */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** 放进 <script type="application/json"> 的 JSON：不让任何 < 出现，也转义 JS 里的两个换行符。 */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value).replace(/</g, "\\u003c").replace(/\u2028/g, "\\u2028").replace(/\u2029/g, "\\u2029");
}

export function renderPage(model: ViewModel): string {
  return `<!DOCTYPE html>
<html lang="zh-CN">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${CONTENT_SECURITY_POLICY}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>会话 ${escapeHtml(model.name)}</title>
<style>${pageStyle}</style>
</head>
<body>
<noscript>这个页面需要 JavaScript 来显示会话（脚本就在本文件里，不联网）。</noscript>
<main id="app"></main>
<script type="application/json" id="session-data">${jsonForScript(model)}</script>
<script>${pageScript}</script>
</body>
</html>
`;
}
