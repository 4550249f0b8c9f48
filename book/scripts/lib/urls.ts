// 站内每一种生成页面的网址，集中在一处：生成器、Markdown 改写与浏览器测试都从这里取。

/** 行号片段：#L5 或 #L5-L9（与 GitHub 一样） */
export function linesHash(from: number, to: number): string {
  return from === to ? `#L${from}` : `#L${from}-L${to}`;
}

/** 路径里的每一段单独编码（中文文件名、空格都能用） */
function encodePath(p: string): string {
  return p.split("/").map(encodeURIComponent).join("/");
}

/** step 为空：不属于任何步骤的仓库文件（labs/scripted-provider/…、research/…） */
export function codeUrl(step: string, file: string, from?: number, to?: number): string {
  return `/code/${step === "" ? "repo" : step}/${encodePath(file)}.html${from === undefined ? "" : linesHash(from, to ?? from)}`;
}

export function diffUrl(step: string, file: string): string {
  return `/diff/${step}/${encodePath(file)}.html`;
}

export function stepUrl(step: string): string {
  return `/steps/${step}.html`;
}

export function piUrl(packageName: string, version: string, file: string, from?: number, to?: number): string {
  const short = packageName.replace(/^@earendil-works\//, "");
  return `/pi/${short}@${version}/${encodePath(file)}.html${from === undefined ? "" : linesHash(from, to ?? from)}`;
}

export function sessionUrl(step: string, name: string): string {
  return `/sessions/${step}/${encodeURIComponent(name)}.html`;
}

/** 章节文件名 8.5-abort-and-extensions.md → 站内网址 /8.5-abort-and-extensions.html */
export function chapterUrl(fileName: string): string {
  return `/${fileName.replace(/\.md$/, ".html")}`;
}

/** 仓库里 docs/ 之外、被章节链接到的 Markdown（research 笔记等）在站内的网址 */
export function repoPageUrl(repoPath: string): string {
  return `/repo/${encodePath(repoPath.replace(/\.md$/, ""))}.html`;
}

export function escapeHtml(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}
