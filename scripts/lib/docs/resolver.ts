import fs from "node:fs";
import path from "node:path";
import { labsDir } from "../paths.ts";
import { splitLines } from "../text.ts";
import { walkFiles } from "../walk-files.ts";
import { findDefinitions, type Definition } from "./definitions.ts";

// Pi 的源码引用由 research/ 的检查器负责，这里一律跳过
const PI_MARK = /packages\/|@earendil-works\/|(?:^|[^\w-])pi(?:-[\w-]+)?@|node_modules\//;

export function isPiReference(text: string): boolean {
  return PI_MARK.test(text);
}

// 这些顶层目录里的路径按仓库根解析，而不是按章节的步骤（labs/ 用于 labs/scripted-provider/ 这样不属于任何步骤的包）
const REPO_DIRS = new Set(["scripts", "research", "docs", "solutions", "labs"]);
const STEP_NAME = /^step\d{2}-[a-z0-9][a-z0-9-]*$/;

// 几章引同一个文件时只解析一次；内容变了（测试改写夹具）就重新解析
const parsedFiles = new Map<string, { text: string; definitions: Definition[] }>();

export type Resolved =
  | { kind: "skip" }
  | { kind: "error"; message: string }
  | { kind: "file"; display: string; lines: string[]; abs: string };

/** 一章的解析上下文：知道本章属于哪些步骤，并缓存读过的文件 */
export class CitationResolver {
  private readonly fileCache = new Map<string, string[] | undefined>();
  private readonly treeCache = new Map<string, string[]>();

  constructor(
    private readonly root: string,
    private readonly available: ReadonlySet<string>,
    /** front matter 里写的步骤（可能包含不存在的，那种在 front matter 处已经报过） */
    private readonly chapterSteps: readonly string[],
  ) {}

  private readLines(abs: string): string[] | undefined {
    if (!this.fileCache.has(abs)) {
      const ok = fs.existsSync(abs) && fs.statSync(abs).isFile();
      this.fileCache.set(abs, ok ? splitLines(fs.readFileSync(abs, "utf8")) : undefined);
    }
    return this.fileCache.get(abs);
  }

  private tree(dir: string): string[] {
    let files = this.treeCache.get(dir);
    if (files === undefined) {
      files = walkFiles(dir);
      this.treeCache.set(dir, files);
    }
    return files;
  }

  private file(baseDir: string, rel: string, display: string): Resolved {
    const abs = path.join(baseDir, ...rel.split("/"));
    const lines = this.readLines(abs);
    return lines === undefined ? { kind: "error", message: `文件不存在：${display}` } : { kind: "file", display, lines, abs };
  }

  /** 被引文件里的定义（函数、类、方法、接口、类型……）各占哪几行 */
  definitions(file: { abs: string; lines: string[] }): Definition[] {
    const text = file.lines.join("\n");
    let hit = parsedFiles.get(file.abs);
    if (hit?.text !== text) {
      hit = { text, definitions: findDefinitions(file.abs, text) };
      parsedFiles.set(file.abs, hit);
    }
    return hit.definitions;
  }

  /** 引用里没写步骤时，用本章 front matter 的步骤；多个步骤时必须写明 */
  private chapterStep(cited: string): { step: string } | Resolved {
    if (this.chapterSteps.length === 0) {
      return { kind: "error", message: `无法确定 ${cited} 属于哪个步骤：本章 front matter 没有 step:，请补上或写成 stepNN-名字/${cited}` };
    }
    if (this.chapterSteps.length > 1) {
      return {
        kind: "error",
        message: `本章涉及多个步骤（${this.chapterSteps.join("、")}），引用 ${cited} 必须写明步骤，例如 ${this.chapterSteps[0]}/${cited}`,
      };
    }
    const step = this.chapterSteps[0] ?? "";
    // 步骤不存在已经在 front matter 那一行报过了，不再逐条重复
    return this.available.has(step) ? { step } : { kind: "skip" };
  }

  /** 把引用里的路径（可能带步骤前缀、可能只是文件名）解析成文件内容 */
  resolve(citedPath: string): Resolved {
    if (isPiReference(citedPath)) return { kind: "skip" };
    let rel = citedPath.replace(/^(\.\.?\/)+/, "");
    if (rel.startsWith("labs/mini-agent-harness/")) rel = rel.slice("labs/mini-agent-harness/".length);
    const segments = rel.split("/");
    const first = segments[0] ?? "";

    if (STEP_NAME.test(first)) {
      if (!this.available.has(first)) return { kind: "error", message: `引用的步骤目录不存在：${first}` };
      const inner = segments.slice(1).join("/");
      return this.file(path.join(labsDir(this.root), first), inner, rel);
    }
    if (segments.length > 1 && REPO_DIRS.has(first)) return this.file(this.root, rel, rel);

    const chosen = this.chapterStep(citedPath);
    if ("kind" in chosen) return chosen;
    const stepDir = path.join(labsDir(this.root), chosen.step);
    if (segments.length > 1) return this.file(stepDir, rel, `${chosen.step}/${rel}`);
    return this.bare(stepDir, chosen.step, rel);
  }

  // 只写了文件名（如 main.ts:46）：先在 src/ 下找，找不到再搜整个步骤目录，必须唯一
  private bare(stepDir: string, step: string, name: string): Resolved {
    const matchName = (f: string) => f === name || f.endsWith(`/${name}`);
    let hits = this.tree(path.join(stepDir, "src")).filter(matchName).map((f) => `src/${f}`);
    if (hits.length === 0) hits = this.tree(stepDir).filter(matchName);
    if (hits.length === 0) {
      return { kind: "error", message: `在 ${step} 里找不到文件 ${name}（如果引用的是 Pi 源码，请写出 packages/… 完整路径）` };
    }
    if (hits.length > 1) {
      return { kind: "error", message: `文件名 ${name} 有歧义：${step} 里有 ${hits.join("、")}，请写出完整路径` };
    }
    const rel = hits[0] ?? name;
    return this.file(stepDir, rel, `${step}/${rel}`);
  }
}

/** 行号范围检查：1 ≤ A ≤ B ≤ 行数；合法时返回 undefined */
export function rangeProblem(cited: string, display: string, lineCount: number, from: number, to: number): string | undefined {
  if (from < 1) return `引用 ${cited} 的行号必须从 1 开始`;
  if (to < from) return `引用 ${cited} 的范围无效：起始行 ${from} 大于结束行 ${to}`;
  if (to > lineCount) return `引用 ${cited} 超出文件范围：${display} 只有 ${lineCount} 行`;
  return undefined;
}
