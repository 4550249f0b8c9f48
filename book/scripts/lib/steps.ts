// 每一步一页（Markdown，进 VitePress）：README、文件树、golden 输出、与上一步的差异、会话页面；
// 以及这一步每个文件的代码页、每个改动文件的差异页（静态 HTML）。
import fs from "node:fs";
import path from "node:path";
import { groupFiles, parseReadingOrder } from "../../../scripts/lib/reading-order.ts";
import { compareSteps, diffSides, statusWord, type FileChange, type StepComparison } from "../../../scripts/lib/step-diff.ts";
import { gitFiles, worktreeFiles, type StepFiles } from "../../../scripts/lib/step-files.ts";
import { normalizeEol } from "../../../scripts/lib/text.ts";
import { unifiedDiff } from "../../../scripts/lib/unified-diff.ts";
import { highlight, langOf, prefetch } from "./highlight.ts";
import { ROOT } from "./paths.ts";
import { renderStaticPage, writeStaticPage } from "./static-pages.ts";
import type { TransformHooks } from "./transform.ts";
import { DEMO_DID_NOT_RUN, escapeStrayTags, rewriteLinks } from "./transform.ts";
import { codeUrl, diffUrl, escapeHtml, sessionUrl, stepUrl } from "./urls.ts";

export interface ChapterInfo {
  file: string;
  title: string;
  /** 短标题，例如 8.5 */
  number: string;
  steps: string[];
}

let source: StepFiles | undefined;
/** 与 npm run diff 同一个来源：git 里提交的版本，没有 git 时是目录里的文件 */
export function stepFiles(): StepFiles {
  source ??= gitFiles(ROOT) ?? worktreeFiles(ROOT);
  return source;
}

function text(step: string, file: string): string | undefined {
  const buf = stepFiles().read(step, file);
  if (buf === undefined || buf.subarray(0, 8000).includes(0)) return undefined;
  return normalizeEol(buf.toString("utf8"));
}

/** 一个文件被哪些章节引用（代码页上「引用它的章节」一栏） */
export type CitedBy = Map<string, ChapterInfo[]>;

function stepTitle(step: string): string {
  const readme = text(step, "README.md") ?? "";
  const h1 = /^#\s+(.+)$/m.exec(readme);
  return h1?.[1]?.trim() ?? step;
}

export function stepLabel(step: string): string {
  return stepTitle(step);
}

const comparisons = new Map<string, StepComparison>();
/** 与上一步的比较（与 npm run diff 同一个函数；所有步骤共用一个 git 来源，每对只算一次） */
function comparison(from: string, to: string): StepComparison {
  const key = `${from}→${to}`;
  let c = comparisons.get(key);
  if (c === undefined) {
    c = compareSteps(ROOT, from, to, { source: stepFiles() });
    comparisons.set(key, c);
  }
  return c;
}

function diffText(from: string, to: string, change: FileChange, read: StepComparison["read"]): string {
  const sides = diffSides({ from, to, read }, change);
  return unifiedDiff(sides.oldLabel, sides.newLabel, sides.oldText, sides.newText);
}

/** 一开始就把这一步所有文件（和与上一步的差异）排进高亮队列：工作线程先忙起来，页面以后再拼 */
export function prefetchStep(step: string, prev: string | undefined): void {
  for (const file of stepFiles().files(step)) {
    const content = text(step, file);
    if (content !== undefined) prefetch(content.replace(/\n$/, ""), langOf(file));
  }
  if (prev === undefined) return;
  const c = comparison(prev, step);
  for (const x of c.changes) if (!x.binary) prefetch(diffText(prev, step, x, c.read), "diff");
}

/** 写一步的全部代码页；返回写了几页 */
export async function writeCodePages(publicDir: string, step: string, citedBy: CitedBy): Promise<number> {
  const files = stepFiles().files(step);
  await Promise.all(files.map((file) => writeCodePage(publicDir, step, file, citedBy)));
  return files.length;
}

async function writeCodePage(publicDir: string, step: string, file: string, citedBy: CitedBy): Promise<void> {
  const content = text(step, file);
  const lines = content === undefined ? 0 : content.split("\n").length - (content.endsWith("\n") ? 1 : 0);
  const body =
    content === undefined ? '<p style="padding:20px">（二进制文件，不显示内容）</p>' : await highlight(content.replace(/\n$/, ""), langOf(file));
  const chapters = citedBy.get(`${step}/${file}`) ?? [];
  const meta = [
    `${lines} 行`,
    `<a href="${stepUrl(step)}">${escapeHtml(step)} 的全部文件</a>`,
    ...(chapters.length > 0 ? [`引用它的章节：${chapters.map((c) => `<a href="/${c.file.replace(/\.md$/, ".html")}">${escapeHtml(c.title)}</a>`).join(" ")}`] : []),
  ].join(" · ");
  const html = renderStaticPage({
    title: `${step}/${file}`,
    crumbs: [{ text: "书", href: "/" }, { text: step, href: stepUrl(step) }, { text: file }],
    back: chapters[0] === undefined ? stepUrl(step) : `/${chapters[0].file.replace(/\.md$/, ".html")}`,
    meta,
    body,
  });
  writeStaticPage(publicDir, codeUrl(step, file), html);
}

/** 不属于步骤、但被章节引用的仓库文件（labs/scripted-provider/…）的代码页：读工作区里的文件 */
export async function writeRepoCodePage(publicDir: string, file: string, chapters: ChapterInfo[]): Promise<void> {
  const content = normalizeEol(fs.readFileSync(path.join(ROOT, ...file.split("/")), "utf8"));
  const body = await highlight(content.replace(/\n$/, ""), langOf(file));
  const html = renderStaticPage({
    title: file,
    crumbs: [{ text: "书", href: "/" }, { text: file }],
    back: chapters[0] === undefined ? "/" : `/${chapters[0].file.replace(/\.md$/, ".html")}`,
    meta: `仓库文件（不属于任何步骤）· 引用它的章节：${chapters.map((c) => `<a href="/${c.file.replace(/\.md$/, ".html")}">${escapeHtml(c.title)}</a>`).join(" ")}`,
    body,
  });
  writeStaticPage(publicDir, codeUrl("", file), html);
}

/** 写这一步相对上一步每个改动文件的差异页 */
export async function writeDiffPages(publicDir: string, from: string, to: string): Promise<void> {
  const c = comparison(from, to);
  await Promise.all(c.changes.map((x) => writeDiffPage(publicDir, from, to, x, c.read)));
}

async function writeDiffPage(publicDir: string, from: string, to: string, change: FileChange, read: StepComparison["read"]): Promise<void> {
  const body = change.binary ? '<p style="padding:20px">（二进制文件，不显示内容）</p>' : await highlight(diffText(from, to, change, read), "diff");
  const status = statusWord(change).replace(/^（|）$/g, "") || "修改";
  const base = diffSides({ from, to, read }, change).oldLabel;
  const links = [
    change.status !== "removed" ? `<a href="${codeUrl(to, change.file)}">${escapeHtml(to)} 里的完整文件</a>` : "",
    base !== "/dev/null" ? `<a href="${codeUrl(from, base.slice(from.length + 1))}">${escapeHtml(from)} 里的完整文件</a>` : "",
  ].filter((s) => s !== "");
  const html = renderStaticPage({
    title: `${from} → ${to} · ${change.file}`,
    crumbs: [{ text: "书", href: "/" }, { text: to, href: stepUrl(to) }, { text: `差异 · ${change.file}` }],
    back: stepUrl(to),
    meta: `${status} · <span style="color:#16a34a">+${change.plus}</span> <span style="color:#e11d48">−${change.minus}</span> · 与 <code>npm run diff -- ${from.slice(4, 6)} ${to.slice(4, 6)}</code> 同一份数据 · ${links.join(" ")}`,
    body,
  });
  writeStaticPage(publicDir, diffUrl(to, change.file), html);
}

function fileTree(step: string, files: string[]): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const file of files) {
    const parts = file.split("/");
    for (let d = 1; d < parts.length; d++) {
      const dir = parts.slice(0, d).join("/");
      if (seen.has(dir)) continue;
      seen.add(dir);
      out.push(`${"  ".repeat(d - 1)}- **${escapeHtml(parts[d - 1] ?? "")}/**`);
    }
    const content = text(step, file);
    const n = content === undefined ? "" : ` <span class="file-lines">${content.split("\n").length - (content.endsWith("\n") ? 1 : 0)} 行</span>`;
    out.push(`${"  ".repeat(parts.length - 1)}- <a href="${codeUrl(step, file)}" target="_self" class="file-link">${escapeHtml(parts.at(-1) ?? file)}</a>${n}`);
  }
  return out;
}

/** README 的标题往下降两级（页里已经有 # 和 ##），链接改成站内页面 */
function readmeSection(step: string, hooks: TransformHooks): string[] {
  const readme = text(step, "README.md");
  if (readme === undefined) return ["（这一步没有 README.md）"];
  const lines = readme.split("\n");
  let fence = false;
  const out: string[] = [];
  for (const [idx, line] of lines.entries()) {
    if (/^\s*(```|~~~)/.test(line)) fence = !fence;
    if (idx === 0 && /^#\s/.test(line)) continue; // 标题已经是页面的 h1
    if (fence) {
      out.push(line);
      continue;
    }
    const demoted = line.replace(/^(#{1,4})\s/, (_m, h: string) => `${"#".repeat(Math.min(6, h.length + 2))} `);
    out.push(escapeStrayTags(rewriteLinks(demoted, `labs/mini-agent-harness/${step}/README.md`, hooks)));
  }
  return out;
}

/** 一步的页面（Markdown；差异页由 writeDiffPages 另写） */
export function stepPage(steps: string[], step: string, chapters: ChapterInfo[], hooks: TransformHooks): string {
  const idx = steps.indexOf(step);
  const prev = idx > 0 ? steps[idx - 1] : undefined;
  const files = stepFiles().files(step);
  const mine = chapters.filter((c) => c.steps.includes(step));
  const out: string[] = [
    "---",
    `title: ${JSON.stringify(stepTitle(step))}`,
    "search: false",
    "outline: [2, 3]",
    "---",
    "",
    `# ${escapeHtml(stepTitle(step))}`,
    "",
    `<p class="step-meta">目录 <code>labs/mini-agent-harness/${step}</code> · 对应章节：${mine.map((c) => `<a href="/${c.file.replace(/\.md$/, ".html")}">${escapeHtml(c.title)}</a>`).join("、") || "（无）"}</p>`,
    "",
    "## 这一步加了什么",
    "",
    ...readmeSection(step, hooks),
    "",
    `## 文件（${files.length} 个）`,
    "",
    "按这一步 README 的「阅读顺序」分组；每个文件都能点开看全文（带行号与语法高亮）。",
    ...groupFiles(files, parseReadingOrder(text(step, "README.md"))).flatMap((g) => ["", `**${escapeHtml(g.title)}**`, "", ...fileTree(step, g.files)]),
    "",
    "## demo 的输出",
    "",
    "`npm run demo` 打印的内容，逐字取自这一步的 `expected-output.txt`（`npm run verify` 比对的就是它）：",
    "",
  ];
  const golden = text(step, "expected-output.txt");
  if (golden !== undefined) {
    const lines = golden.replace(/\n$/, "").split("\n");
    let longest = 2;
    for (const l of lines) for (const m of l.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
    const fence = "`".repeat(longest + 1);
    out.push(`${fence}text`, ...lines, fence);
  } else {
    out.push("（这一步没有 expected-output.txt）");
  }
  const sessions = hooks.sessions(step);
  const failed = hooks.demoFailed?.(step);
  if (failed !== undefined) {
    const fence = "`".repeat(Math.max(3, ...[...failed.matchAll(/`+/g)].map((m) => m[0].length + 1)));
    out.push("", "## demo 写下的会话", "", `<p class="demo-failed">${escapeHtml(DEMO_DID_NOT_RUN)}</p>`, "", "构建时记下的那一行：", "", `${fence}text`, failed, fence);
  } else if (sessions.length > 0) {
    out.push("", "## demo 写下的会话", "", "构建书站时在临时目录里重新运行这一步的 demo，把它写下的会话文件交给会话查看器（`npm run view`）画成页面：", "");
    for (const n of sessions) out.push(`- <a href="${sessionUrl(step, n)}" target="_self" class="session-link">${escapeHtml(n)}.jsonl</a>`);
  }
  if (prev !== undefined) {
    const c = comparison(prev, step);
    out.push(
      "",
      `## 与上一步相比（${prev} → ${step}）`,
      "",
      `与 \`npm run diff -- ${prev.slice(4, 6)} ${step.slice(4, 6)}\` 同一份数据（git 里提交的版本）：新增 ${c.added.length} 个文件，删除 ${c.removed.length} 个，修改 ${c.changed.length} 个，挪来或改来 ${c.changes.filter((x) => x.origin !== undefined).length} 个，未变 ${c.unchanged} 个。点文件名看它的差异。`,
    );
    const byFile = new Map(c.changes.map((x) => [x.file, x]));
    for (const g of c.groups) {
      out.push("", `**${escapeHtml(g.title)}**`, "", "| 文件 | 变化 | 行数 |", "|---|---|---|");
      for (const x of g.files.flatMap((f) => byFile.get(f) ?? [])) {
        const status = statusWord(x).replace(/^（|）$/g, "") || "修改";
        const count = x.binary ? "（二进制）" : `<span class="plus">+${x.plus}</span> <span class="minus">−${x.minus}</span>`;
        out.push(`| <a href="${diffUrl(step, x.file)}" target="_self" class="diff-link">${escapeHtml(x.file)}</a> | ${status} | ${count} |`);
      }
    }
  }
  return out.join("\n") + "\n";
}

/** 仓库里的一个路径对应哪一步的哪个文件（给链接改写用） */
export function stepFileOf(repoPath: string): { step: string; file: string } | undefined {
  const m = /^labs\/mini-agent-harness\/(step\d{2}-[a-z0-9-]+)(?:\/(.*))?$/.exec(repoPath);
  if (m === null) return undefined;
  return { step: m[1] ?? "", file: m[2] ?? "" };
}

export function existsInStep(step: string, file: string): boolean {
  return fs.existsSync(path.join(ROOT, "labs", "mini-agent-harness", step, ...file.split("/")));
}
