// 书站用到的目录：都从本文件的位置推出来，不依赖当前工作目录。
import path from "node:path";
import { fileURLToPath } from "node:url";

/** book/ 目录 */
export const BOOK_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
/** 仓库根目录 */
export const ROOT = path.dirname(BOOK_DIR);
/** 生成的站点源文件（Markdown 与静态页面），每次构建重写，不进 git */
export const GEN_DIR = path.join(BOOK_DIR, ".gen");
/** VitePress 的 public/：图、代码页共用的样式与脚本（Markdown 页面里引用它们） */
export const PUBLIC_DIR = path.join(GEN_DIR, "public");
/**
 * 静态页面（代码页、差异页、Pi 源码页、会话页）：与 VitePress 的构建同时写在这里，VitePress 不碰它们，
 * 两边都完成后再整个挪进 dist/（不经过 public/，也就不必等它们写完才开始构建）
 */
export const PAGES_DIR = path.join(BOOK_DIR, ".gen-pages");
/** 构建结果：任何静态服务器都能直接发布这个目录 */
export const DIST_DIR = path.join(BOOK_DIR, "dist");
/** 按内容哈希缓存的渲染结果（Mermaid 的 SVG、Shiki 的 HTML），不进 git */
export const CACHE_DIR = path.join(BOOK_DIR, ".cache");
/** 浏览器测试的截图，不进 git */
export const SCREENSHOT_DIR = path.join(BOOK_DIR, "screenshots");
export const DOCS_DIR = path.join(ROOT, "docs");
export const LABS_DIR = path.join(ROOT, "labs", "mini-agent-harness");

/** 正斜杠路径（URL 与给人看的路径都用它） */
export function posix(p: string): string {
  return p.split(path.sep).join("/");
}
