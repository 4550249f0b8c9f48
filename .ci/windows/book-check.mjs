// Windows 阶段的书站一项：node.exe 构建出的 book/dist/ 里有每一章（含 docs/deep/ 的深入页），每个 ```mermaid 块都成了页面上的一张图；
// 没有浏览器时图交给读者的浏览器画：页面里的 data-mermaid 解出来就是章节里那段源码，书站带着自己的 mermaid.min.js；
// 构建的输出里说了一行为什么，没有调用栈。
// 用法：node .ci/windows/book-check.mjs <构建的输出文件>
import fs from "node:fs";
import path from "node:path";

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..", "..");
const docs = path.join(root, "docs");
const dist = path.join(root, "book", "dist");
const log = fs.readFileSync(process.argv[2], "utf8").replace(/\r/g, "");
const problems = [];

const pages = [
  ...fs.readdirSync(docs).filter((f) => /^\d+\.\d+-.*\.md$/.test(f)),
  ...(fs.existsSync(path.join(docs, "deep")) ? fs.readdirSync(path.join(docs, "deep")).filter((f) => f.endsWith(".md")).map((f) => `deep/${f}`) : []),
];
let figures = 0;
let live = 0;
for (const page of pages) {
  const md = fs.readFileSync(path.join(docs, ...page.split("/")), "utf8").replace(/\r/g, "");
  const codes = [...md.matchAll(/^```mermaid[ \t]*\n([\s\S]*?)\n```[ \t]*$/gm)].map((m) => m[1]);
  const htmlFile = path.join(dist, ...page.replace(/\.md$/, ".html").split("/"));
  if (!fs.existsSync(htmlFile)) {
    problems.push(`没有 ${path.relative(root, htmlFile)}（章节 docs/${page}）`);
    continue;
  }
  const html = fs.readFileSync(htmlFile, "utf8");
  const shown = [...html.matchAll(/<figure class="mermaid-figure"[^>]*>/g)].map((m) => m[0]);
  if (shown.length !== codes.length) problems.push(`docs/${page}：${codes.length} 个 mermaid 块，页面上 ${shown.length} 张图`);
  const drawnLater = shown.map((tag) => /data-mermaid="([^"]*)"/.exec(tag)?.[1]).filter((b) => b !== undefined).map((b) => Buffer.from(b, "base64").toString("utf8"));
  for (const code of drawnLater) if (!codes.includes(code)) problems.push(`docs/${page}：页面里交给浏览器画的一张图与章节里的源码对不上`);
  figures += shown.length;
  live += drawnLater.length;
}
if (live > 0 && !fs.existsSync(path.join(dist, "mermaid", "mermaid.min.js"))) problems.push("有图交给读者的浏览器画，可 book/dist/mermaid/mermaid.min.js 不在");
if (live > 0 && !/^画图：.*改由读者的浏览器用书站自带的 Mermaid 画/m.test(log)) problems.push("构建的输出里没有说图改由读者的浏览器画");
if (/^\s+at .+:\d+:\d+\)?$/m.test(log)) problems.push("构建的输出里有调用栈");

if (problems.length > 0) {
  console.error(`书站产物检查失败：\n  ${problems.join("\n  ")}`);
  process.exit(1);
}
console.log(`书站产物检查通过：${pages.length} 页章节都在，${figures} 张图都在（其中 ${live} 张交给读者的浏览器画，书站带着自己的 Mermaid）`);
