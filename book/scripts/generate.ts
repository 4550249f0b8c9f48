// 从仓库生成书站的源文件（.gen/）：章节副本、首页、步骤页、research 笔记页与 public/ 下的 Mermaid 图；
// 另在 .gen-pages/ 写代码页、差异页、Pi 源码页、会话页（静态 HTML）。VitePress 把 .gen/ 构建成 dist/，
// build.ts 再把 .gen-pages/ 挪进去。生成的一切都来自仓库里提交的文件与构建时的运行结果，所以书站不会与代码走样。
//
// 快慢的安排（两个核上冷构建 ≤ 60 秒）：一开始同时启动最慢的三件事——Chromium 渲染图、跑 demo、工作线程高亮
// 每一步的每个文件；Markdown 只等图和会话（要知道图的尺寸与会话的名字）就写好并返回，
// VitePress 于是可以与还没高亮完的静态页面同时构建（返回值里的 pages）。
import fs from "node:fs";
import path from "node:path";
import { listChapters, listDeepPages, parentChapter } from "../../scripts/lib/docs-checker.ts";
import { parseChapter } from "../../scripts/lib/docs/markdown.ts";
import { readChapterSteps } from "../../scripts/lib/docs/front-matter.ts";
import { listSteps } from "../../scripts/lib/steps.ts";
import { cacheStats, startHighlighter, stopHighlighter } from "./lib/highlight.ts";
import { renderFigures, type FigureSource } from "./lib/mermaid.ts";
import { BOOK_DIR, DOCS_DIR, GEN_DIR, PAGES_DIR, PUBLIC_DIR, ROOT, posix } from "./lib/paths.ts";
import { chapterCitations } from "./lib/citations.ts";
import { orderNotes, readingOrder } from "./lib/reading-order.ts";
import { checkPins, prefetchPiFiles, writePiPages, type PiFileRef } from "./lib/pi-pages.ts";
import { writeSessionPages } from "./lib/sessions.ts";
import { prefetchStep, stepFileOf, stepFiles, stepPage, writeCodePages, writeDiffPages, writeRepoCodePage, type ChapterInfo } from "./lib/steps.ts";
import { transformChapter, transformPlain, type CitationRecord, type TransformHooks } from "./lib/transform.ts";
import { codeUrl, stepUrl } from "./lib/urls.ts";

export interface BookData {
  /** 按阅读顺序；深入页（docs/deep/）紧跟在它所属的章节后面，parent 是那一章的文件名 */
  chapters: Array<ChapterInfo & { url: string; mermaid: number; citations: CitationRecord[]; parent?: string; orderNote?: string }>;
  steps: Array<{ name: string; title: string; url: string; sessions: string[]; demoFailed?: string }>;
  repoPages: Array<{ path: string; url: string; title: string }>;
  counts: Record<string, number>;
}

function titleOf(markdown: string, fallback: string): string {
  return /^#\s+(.+)$/m.exec(markdown)?.[1]?.trim() ?? fallback;
}

function write(rel: string, content: string): void {
  const file = path.join(GEN_DIR, ...rel.split("/"));
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, content);
}

function copyDir(from: string, to: string): void {
  if (!fs.existsSync(from)) return;
  fs.cpSync(from, to, { recursive: true });
}

export interface Generated {
  data: BookData;
  /** .gen-pages/ 里的静态页面全部写完（之后 book-data.json 里的计数才齐） */
  pages: Promise<void>;
}

export async function generate(log: (line: string) => void = () => {}): Promise<Generated> {
  const started = Date.now();
  let mark = started;
  const phase = (name: string) => {
    if (process.env.BOOK_TIMING) log(`  ${name}：${((Date.now() - mark) / 1000).toFixed(1)} 秒（从开始算 ${((Date.now() - started) / 1000).toFixed(1)} 秒）`);
    mark = Date.now();
  };
  checkPins();
  fs.rmSync(GEN_DIR, { recursive: true, force: true });
  fs.rmSync(PAGES_DIR, { recursive: true, force: true });
  fs.mkdirSync(PUBLIC_DIR, { recursive: true });
  fs.mkdirSync(PAGES_DIR, { recursive: true });
  copyDir(path.join(BOOK_DIR, "static"), path.join(PUBLIC_DIR, "static"));
  // 会话查看器的页面没有 <link rel="icon">，浏览器会去要 /favicon.ico：给它一个空文件，而不是 404
  fs.writeFileSync(path.join(PUBLIC_DIR, "favicon.ico"), "");
  copyDir(path.join(DOCS_DIR, "images"), path.join(GEN_DIR, "images"));

  const steps = listSteps(ROOT);
  const available = new Set(steps);
  const readme = fs.readFileSync(path.join(DOCS_DIR, "README.md"), "utf8");
  const order = readingOrder(readme, listChapters(ROOT));
  const notes = orderNotes(readme, order);
  const info = (file: string): ChapterInfo => {
    const text = fs.readFileSync(path.join(DOCS_DIR, ...file.split("/")), "utf8");
    const parsed = parseChapter(text);
    return { file, title: titleOf(text, file), number: /^(?:deep\/)?(\d+\.\d+)/.exec(file)?.[1] ?? file, steps: readChapterSteps(parsed.frontMatter).steps.map((s) => s.name) };
  };
  const chapters: ChapterInfo[] = order.map(info);
  // 深入页是所属章节的子页面：页面与引用和章节一样生成，侧边栏里挂在那一章下面
  const deepParent = new Map(listDeepPages(ROOT).map((d) => [d, parentChapter(d, order)] as const));
  const pages: ChapterInfo[] = order.flatMap((c) => [info(c), ...[...deepParent].filter(([, p]) => p === c).map(([d]) => info(d))]);

  // 三件慢事同时开始：工作线程载入 Shiki、Chromium 渲染图、demo 写会话
  startHighlighter();
  const figureSources: FigureSource[] = [];
  for (const c of pages) {
    const blocks = parseChapter(fs.readFileSync(path.join(DOCS_DIR, ...c.file.split("/")), "utf8")).blocks.filter((b) => b.info.split(/\s+/)[0] === "mermaid");
    for (const [k, b] of blocks.entries()) figureSources.push({ code: b.content.join("\n"), file: `docs/${c.file}`, line: b.fenceLine, n: k + 1 });
  }
  const figuresPromise = renderFigures(figureSources, PUBLIC_DIR, log);
  const sessionsPromise = writeSessionPages(PAGES_DIR, steps, log);
  // 等它们的时候，先把各章引用的 Pi 文件（最大的几个）、再把每一步的文件和差异排进高亮队列；
  // 每步之间让一下事件循环，Chromium 与 demo 的消息不必等
  for (const c of pages) prefetchPiFiles(chapterCitations(ROOT, parseChapter(fs.readFileSync(path.join(DOCS_DIR, ...c.file.split("/")), "utf8")), available, c.file).pi);
  await new Promise((resolve) => setImmediate(resolve));
  for (const [i, step] of steps.entries()) {
    prefetchStep(step, steps[i - 1]);
    await new Promise((resolve) => setImmediate(resolve));
  }
  phase("读步骤、排高亮队列");
  const [{ figures, stats: figureStats }, { sessions, failed: demoFailed }] = await Promise.all([figuresPromise, sessionsPromise]);
  phase("Mermaid 与会话页面");

  // 章节与首页链接到的 docs/ 之外的 Markdown（research 笔记、solutions 说明……）做成站内页面
  const repoPages = new Map<string, string>();
  const chapterSet = new Set(pages.map((c) => c.file));
  const pageFor = (allowNew: boolean) => (repoPath: string): string | undefined => {
    if (repoPath.startsWith("docs/") && chapterSet.has(repoPath.slice(5))) return `/${repoPath.slice(5)}`;
    if (repoPath === "docs/README.md") return "/index.md";
    const inStep = stepFileOf(repoPath);
    if (inStep !== undefined) {
      if (inStep.file === "" || inStep.file === "README.md") return available.has(inStep.step) ? `/steps/${inStep.step}.md` : undefined;
      return stepFiles().files(inStep.step).includes(inStep.file) ? codeUrl(inStep.step, inStep.file) : undefined;
    }
    if (/\.md$/.test(repoPath) && fs.existsSync(path.join(ROOT, ...repoPath.split("/")))) {
      if (repoPages.has(repoPath)) return repoPages.get(repoPath);
      if (!allowNew) return undefined;
      const url = `/repo/${repoPath}`;
      repoPages.set(repoPath, url);
      return url;
    }
    return undefined;
  };
  const hooks = (allowNew: boolean): TransformHooks => ({
    figure: (code) => {
      const f = figures.get(code);
      if (f === undefined) throw new Error("内部错误：这张图没有渲染");
      return f;
    },
    pageFor: pageFor(allowNew),
    sessions: (step) => sessions.get(step) ?? [],
    demoFailed: (step) => demoFailed.get(step),
  });

  const data: BookData = { chapters: [], steps: [], repoPages: [], counts: {} };
  const citedBy = new Map<string, ChapterInfo[]>();
  const piCitedBy = new Map<string, Array<{ file: string; title: string }>>();
  const piRefs: PiFileRef[] = [];
  for (const c of pages) {
    const r = transformChapter(c.file, available, hooks(true));
    write(c.file, r.markdown);
    for (const [step, files] of r.codeFiles) for (const f of files) citedBy.set(`${step}/${f}`, [...(citedBy.get(`${step}/${f}`) ?? []), c]);
    for (const p of r.piFiles) {
      const key = `${p.packageName}@${p.version}/${p.file}`;
      const list = piCitedBy.get(key) ?? [];
      if (!list.some((x) => x.file === `/${c.file.replace(/\.md$/, ".html")}`)) list.push({ file: `/${c.file.replace(/\.md$/, ".html")}`, title: c.title });
      piCitedBy.set(key, list);
    }
    piRefs.push(...r.piFiles);
    const parent = deepParent.get(c.file);
    const note = notes.get(c.file);
    data.chapters.push({ ...c, url: `/${c.file.replace(/\.md$/, ".html")}`, mermaid: r.figures, citations: r.citations, ...(parent === undefined ? {} : { parent }), ...(note === undefined ? {} : { orderNote: note }) });
  }

  phase("章节改写");
  const home = transformPlain("docs/README.md", hooks(true));
  write("index.md", `---\ntitle: 书的地图\n---\n\n${home.markdown}`);
  piRefs.push(...home.piFiles);

  // 仓库页面：只改链接与 Pi 引用；它们再链出去的 Markdown 不再继续展开（站外的留成文字）
  for (const [repoPath, url] of repoPages) {
    const r = transformPlain(repoPath, hooks(false));
    const title = titleOf(r.markdown, repoPath);
    write(url.slice(1), `---\ntitle: ${JSON.stringify(title)}\nsearch: false\n---\n\n> 仓库文件 \`${repoPath}\`（构建书站时原样取来）\n\n${r.markdown}`);
    for (const p of r.piFiles) {
      const key = `${p.packageName}@${p.version}/${p.file}`;
      piCitedBy.set(key, [...(piCitedBy.get(key) ?? []), { file: url.replace(/\.md$/, ".html"), title }]);
    }
    piRefs.push(...r.piFiles);
    data.repoPages.push({ path: repoPath, url: url.replace(/\.md$/, ".html"), title });
  }

  for (const step of steps) {
    write(`steps/${step}.md`, stepPage(steps, step, chapters, hooks(false)));
    const title = titleOf(fs.readFileSync(path.join(ROOT, "labs", "mini-agent-harness", step, "README.md"), "utf8"), step);
    const failedLine = demoFailed.get(step);
    data.steps.push({ name: step, title, url: stepUrl(step), sessions: sessions.get(step) ?? [], ...(failedLine === undefined ? {} : { demoFailed: failedLine }) });
  }
  // VitePress 开始构建时要读它（侧边栏、页面列表）；静态页面写完后再补上计数
  write("book-data.json", JSON.stringify(data, null, 2));
  phase("Markdown 页面");

  const staticPages = (async () => {
    let codePages = 0;
    const piPagesPromise = writePiPages(PAGES_DIR, piRefs, piCitedBy);
    const counts = await Promise.all(steps.map((step) => writeCodePages(PAGES_DIR, step, citedBy)));
    for (const n of counts) codePages += n;
    await Promise.all(steps.map((step, i) => (i === 0 ? undefined : writeDiffPages(PAGES_DIR, steps[i - 1] as string, step))));
    await Promise.all([...citedBy].filter(([key]) => key.startsWith("/")).map(([key, list]) => writeRepoCodePage(PAGES_DIR, key.slice(1), list)));
    const piPages = await piPagesPromise;
    await stopHighlighter();
    phase("代码页、差异页、Pi 源码页");

    const shiki = cacheStats();
    data.counts = {
      chapters: chapters.length,
      deepPages: pages.length - chapters.length,
      labCitations: data.chapters.reduce((n, c) => n + c.citations.filter((x) => x.kind === "lab").length, 0),
      piCitations: data.chapters.reduce((n, c) => n + c.citations.filter((x) => x.kind === "pi").length, 0),
      figures: figureSources.length,
      figuresRendered: figureStats.rendered,
      figuresLive: figureStats.live,
      codePages,
      piPages,
      sessionPages: [...sessions.values()].reduce((n, s) => n + s.length, 0),
      shikiCached: shiki.hits,
      shikiRendered: shiki.misses,
    };
    write("book-data.json", JSON.stringify(data, null, 2));
    log(
      `生成：${data.counts.chapters} 章，实验引用 ${data.counts.labCitations} 处、Pi 引用 ${data.counts.piCitations} 处，` +
        `图 ${data.counts.figures} 张（新渲染 ${figureStats.rendered}${figureStats.live > 0 ? `，读者的浏览器里画 ${figureStats.live}` : ""}），代码页 ${codePages}，Pi 源码页 ${piPages}，会话页 ${data.counts.sessionPages}` +
        `（高亮 ${shiki.misses} 份、取自缓存 ${shiki.hits} 份；${((Date.now() - started) / 1000).toFixed(1)} 秒）`,
    );
  })();
  // 先挂上一个处理器：VitePress 构建期间这里出错，也要等 build.ts 来取时再报
  staticPages.catch(() => {});
  return { data, pages: staticPages };
}

export { posix };
