// Pi 引用页：被引用的 Pi 文件，从钉住版本的 npm 包自带的 source map 还原（与 research/ 检查器同一个还原函数），
// 全文高亮，网址里的 #L144-L178 就是被引的那几行；另给一个 GitHub 上对应发布标签的外部链接。离线可用。
import fs from "node:fs";
import path from "node:path";
import { readPinnedVersions, RESEARCH_DIR } from "../../../research/scripts/lib/pi-packages.ts";
import { readManifest, recoverPackage } from "../../../research/scripts/lib/source-maps.ts";
import { highlight, langOf, prefetch } from "./highlight.ts";
import { BookError } from "./book-error.ts";
import { BOOK_DIR } from "./paths.ts";
import { renderStaticPage, writeStaticPage } from "./static-pages.ts";
import { escapeHtml, piUrl } from "./urls.ts";

const PI_SRC = path.join(BOOK_DIR, ".pi-src");

function installedDir(name: string): string {
  return path.join(BOOK_DIR, "node_modules", ...name.split("/"));
}

/** book/package.json（bookTarballs）钉的版本必须与 research/package.json 一致：两边证明的是同一份源码 */
export function checkPins(): Record<string, string> {
  const research = readPinnedVersions(RESEARCH_DIR);
  const mine = (JSON.parse(fs.readFileSync(path.join(BOOK_DIR, "package.json"), "utf8")) as { bookTarballs?: Record<string, { version: string }> }).bookTarballs ?? {};
  for (const [name, version] of Object.entries(research)) {
    if (mine[name]?.version !== version) throw new BookError(`book/package.json 的 bookTarballs 里 ${name} 是 ${mine[name]?.version ?? "（没有）"}，research/package.json 钉的是 ${version}：两边要一致`);
  }
  return research;
}

/** 读一个 Pi 包里的文件：src/ 下的从还原出的源码读，其余（docs/…）从已安装的包读 */
export function readPiFile(name: string, version: string, file: string): string | undefined {
  if (file.startsWith("src/")) {
    const outDir = path.join(PI_SRC, ...`${name}@${version}`.split("/"));
    if (readManifest(outDir)?.version !== version) {
      const pkg = JSON.parse(fs.readFileSync(path.join(installedDir(name), "package.json"), "utf8")) as { version: string };
      if (pkg.version !== version) throw new BookError(`book/node_modules 里的 ${name} 是 ${pkg.version}，不是 ${version}：再运行一次 npm run book:build（它会重装）`);
      recoverPackage(name, version, installedDir(name), outDir);
    }
    const abs = path.join(outDir, ...file.split("/"));
    return fs.existsSync(abs) ? fs.readFileSync(abs, "utf8") : undefined;
  }
  const abs = path.join(installedDir(name), ...file.split("/"));
  return fs.existsSync(abs) ? fs.readFileSync(abs, "utf8") : undefined;
}

/** GitHub 上这个文件在发布标签处的地址（仓库与子目录取自包的 package.json；标签名按 v<版本> 推定） */
export function githubUrl(name: string, version: string, file: string): string | undefined {
  const pkg = JSON.parse(fs.readFileSync(path.join(installedDir(name), "package.json"), "utf8")) as {
    repository?: { url?: string; directory?: string };
  };
  const m = /github\.com\/([^/]+\/[^/.]+)/.exec(pkg.repository?.url ?? "");
  if (m === null) return undefined;
  const dir = pkg.repository?.directory ? `${pkg.repository.directory}/` : "";
  return `https://github.com/${m[1]}/blob/v${version}/${dir}${file}`;
}

export interface PiFileRef {
  packageName: string;
  version: string;
  file: string;
}

/** 一个 Pi 引用页上显示的内容（换行统一、去掉末尾换行） */
function piContent(r: PiFileRef): string {
  const content = readPiFile(r.packageName, r.version, r.file);
  if (content === undefined) throw new Error(`Pi 引用的文件不存在：${r.packageName}@${r.version}/${r.file}（npm test --prefix research 也会报这一条）`);
  return content.replace(/\r\n?/g, "\n").replace(/\n$/, "");
}

/** 提前把这些 Pi 文件排进高亮队列（它们是最大的几个文件，越早开始越好）；出错留到 writePiPages 再报 */
export function prefetchPiFiles(refs: PiFileRef[]): void {
  for (const r of refs) {
    try {
      prefetch(piContent(r), langOf(r.file));
    } catch {
      // writePiPages 会再读一次并报错
    }
  }
}

/** 写所有被引用到的 Pi 文件的页面；返回页数 */
export async function writePiPages(publicDir: string, refs: PiFileRef[], citedBy: Map<string, Array<{ file: string; title: string }>>): Promise<number> {
  const unique = new Map(refs.map((r) => [`${r.packageName}@${r.version}/${r.file}`, r]));
  // 先读出全部文件并排进高亮队列，再一页一页地拼
  const contents = new Map<string, string>();
  for (const [key, r] of unique) {
    contents.set(key, piContent(r));
    prefetch(contents.get(key) ?? "", langOf(r.file));
  }
  await Promise.all([...unique].map(async ([key, r]) => {
    const body = await highlight(contents.get(key) ?? "", langOf(r.file));
    const gh = githubUrl(r.packageName, r.version, r.file);
    const chapters = citedBy.get(key) ?? [];
    const meta = [
      `从 npm 包 <code>${escapeHtml(r.packageName)}@${escapeHtml(r.version)}</code> 自带的 source map 还原（与 <code>npm test --prefix research</code> 核对引用用的是同一份）`,
      ...(gh === undefined ? [] : [`<a href="${escapeHtml(gh)}" rel="noopener" class="external">GitHub 上 v${escapeHtml(r.version)} 标签里的这个文件 ↗</a>`]),
      ...(chapters.length > 0 ? [`引用它的页面：${chapters.map((c) => `<a href="${escapeHtml(c.file)}">${escapeHtml(c.title)}</a>`).join(" ")}`] : []),
    ].join(" · ");
    const html = renderStaticPage({
      title: `${r.packageName}@${r.version} ${r.file}`,
      crumbs: [{ text: "书", href: "/" }, { text: `${r.packageName}@${r.version}` }, { text: r.file }],
      back: chapters[0]?.file ?? "/",
      meta,
      body,
    });
    writeStaticPage(publicDir, piUrl(r.packageName, r.version, r.file), html);
  }));
  return unique.size;
}
