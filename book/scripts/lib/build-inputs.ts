// 书站是从哪些文件构建出来的：它们都没变，npm run book 就直接发布上次构建的结果（不再花半分钟重建）。
// 按几块分别取哈希，变了的时候说得出是哪一块变了。宁可多算：这里漏掉一个真正的输入，读者看到的就是旧书站。
//   - docs/：章节、深入页、图片；
//   - labs/：步骤（demo 跑的是目录里现在的文件）、会话查看器、脚本服务器；
//   - book/ 与 scripts/：书站的配置、生成器、样式、锁文件，以及生成器借用的仓库脚本（文档检查器的找引用函数……）；
//   - 其他说明：章节可能链到的仓库里的任何 Markdown（research 笔记、solutions 与各处 README）与 research/package.json（Pi 的版本）；
//   - git：代码页与差异页取的是 git 里提交的版本，提交变了也要重建。
import { spawnSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { CACHE_DIR, DIST_DIR, ROOT } from "./paths.ts";

/** 不算输入的目录：依赖、生成的东西、运行时写的会话 */
const SKIP = new Set(["node_modules", ".git", ".sessions", ".gen", ".gen-pages", ".cache", "dist", "screenshots", ".pi-src", "cache", ".stryker-tmp", "reports"]);

export const AREAS = ["docs/", "步骤与 labs/", "书站的配置与脚本（book/、scripts/）", "仓库里的其他说明", "git 里提交的版本"] as const;
export type Area = (typeof AREAS)[number];
export type BuildInputs = Record<Area, string>;

function walk(dir: string, keep: (rel: string) => boolean, rel = "", out: string[] = []): string[] {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(path.join(dir, rel), { withFileTypes: true });
  } catch {
    return out;
  }
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    if (SKIP.has(entry.name) || entry.name.endsWith(".log")) continue;
    const child = rel === "" ? entry.name : `${rel}/${entry.name}`;
    if (entry.isDirectory()) walk(dir, keep, child, out);
    else if (entry.isFile() && keep(child)) out.push(child);
  }
  return out;
}

function hashFiles(root: string, files: string[]): string {
  const h = crypto.createHash("sha256");
  for (const f of files) h.update(f).update("\0").update(fs.readFileSync(path.join(root, ...f.split("/")))).update("\0");
  return h.digest("hex").slice(0, 16);
}

const under = (dir: string) => (rel: string) => rel === dir || rel.startsWith(`${dir}/`);

/** 现在的各块输入的哈希 */
export function buildInputs(root = ROOT): BuildInputs {
  const all = (dir: string) => walk(root, () => true, dir);
  const otherDocs = walk(root, (rel) => (rel.endsWith(".md") || rel === "research/package.json") && !["docs", "labs", "book", "scripts"].some((d) => under(d)(rel)));
  const git = spawnSync("git", ["rev-parse", "HEAD^{tree}"], { cwd: root, encoding: "utf8" });
  return {
    "docs/": hashFiles(root, all("docs")),
    "步骤与 labs/": hashFiles(root, all("labs")),
    "书站的配置与脚本（book/、scripts/）": hashFiles(root, [...all("book"), ...all("scripts")]),
    仓库里的其他说明: hashFiles(root, otherDocs),
    "git 里提交的版本": git.status === 0 ? git.stdout.trim() : "（没有 git）",
  };
}

const STAMP = path.join(CACHE_DIR, "last-build.json");

/** 一次完整的构建（没有哪一步的 demo 失败）之后记下它的输入 */
export function recordBuild(inputs: BuildInputs, stamp = STAMP): void {
  fs.mkdirSync(path.dirname(stamp), { recursive: true });
  fs.writeFileSync(stamp, JSON.stringify(inputs, null, 2));
}

/** 开始构建时作废上次的记录 */
export function forgetBuild(stamp = STAMP): void {
  fs.rmSync(stamp, { force: true });
}

/** 上次完整构建以来变了的那几块；没有上次（或 dist/ 不在了）时返回 undefined */
export function changedSince(inputs: BuildInputs, stamp = STAMP, dist = DIST_DIR): Area[] | undefined {
  if (!fs.existsSync(path.join(dist, "index.html"))) return undefined;
  let last: Partial<BuildInputs>;
  try {
    last = JSON.parse(fs.readFileSync(stamp, "utf8")) as Partial<BuildInputs>;
  } catch {
    return undefined;
  }
  return AREAS.filter((area) => last[area] !== inputs[area]);
}
