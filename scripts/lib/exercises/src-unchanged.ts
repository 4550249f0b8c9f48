/**
 * 「你没有改动宿主代码」这句话要有依据：把步骤的 src/ 与提交的版本比一比。
 *
 * 有 git 时问 git（git status 只看 src/，连新建的文件也算）；
 * 没有 git（例如下载的压缩包）或这份副本不在 git 里时，改用随检查器提交的哈希清单
 * src-manifest.json 逐个文件比对。两种方式都在检查名里写明，不声称没核对过的事。
 *
 * 例外只有一种（练习的 additions）：书上练习 7 的第 4 步要学习者在 src/rules.ts 的 RULES 里加两条规则。
 * 这个文件若只是在那个数组里多了几行（原有的每一行都在、次序不变），就不算改动；
 * 原来的行要么取自 git 里提交的版本，要么取自随附的逐行哈希 src-lines.json。
 */

import { execFile, execFileSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

import { walkFiles } from "../walk-files.ts";
import type { Check } from "./types.ts";

/** 步骤名 → { "src/…": sha256 }。 */
export type Manifest = Record<string, Record<string, string>>;

export const MANIFEST_FILE = path.join(path.dirname(fileURLToPath(import.meta.url)), "src-manifest.json");
/** "步骤名/src/…" → 这个文件每一行的哈希（只为允许「只加不改」的文件）。 */
export type LineManifest = Record<string, string[]>;
export const LINES_FILE = path.join(path.dirname(fileURLToPath(import.meta.url)), "src-lines.json");

import type { Additions } from "./additions.ts";

/** 一段文件内容的哈希。换行统一成 LF：autocrlf 检出的 Windows 副本也算「没改」。 */
export function hashContent(content: Buffer): string {
  const text = content.toString("latin1").replace(/\r\n/g, "\n");
  return crypto.createHash("sha256").update(text, "latin1").digest("hex");
}

const hashFile = (file: string): string => hashContent(fs.readFileSync(file));

/** 算出一个步骤 src/ 的清单。 */
export function manifestOf(stepDir: string): Record<string, string> {
  const entries = walkFiles(path.join(stepDir, "src")).map((rel) => [`src/${rel}`, hashFile(path.join(stepDir, "src", rel))] as const);
  return Object.fromEntries(entries);
}

export function readShippedManifest(): Manifest {
  try {
    return JSON.parse(fs.readFileSync(MANIFEST_FILE, "utf8")) as Manifest;
  } catch {
    return {};
  }
}

export function readShippedLines(): LineManifest {
  try {
    return JSON.parse(fs.readFileSync(LINES_FILE, "utf8")) as LineManifest;
  } catch {
    return {};
  }
}

const splitLines = (text: string): string[] => text.replace(/\r\n/g, "\n").split("\n");
const hashLine = (line: string): string => crypto.createHash("sha256").update(line, "utf8").digest("hex").slice(0, 16);

/** 一段文本逐行的哈希（换行统一成 LF）。 */
export const lineHashes = (text: string): string[] => splitLines(text).map(hashLine);

/**
 * current 是不是只在 opens 开头的数组里加了行：原有的行按次序都能在 current 里找到，
 * 多出来的行全在 opens 那一行和它之后第一个 "];" 之间。是就返回 undefined，不是就说出原因。
 */
export function onlyAdditions(current: string, original: string[], opens: string): string | undefined {
  const lines = splitLines(current);
  const hashes = lines.map(hashLine);
  const position: number[] = [];
  let at = 0;
  for (const [index, hash] of original.entries()) {
    while (at < hashes.length && hashes[at] !== hash) at++;
    if (at === hashes.length) return `原来的第 ${index + 1} 行被改动或删掉了（只能新增规则，原有的规则一字不改、次序不变）`;
    position.push(at++);
  }
  const opensAt = original.indexOf(hashLine(opens));
  const closesAt = original.indexOf(hashLine("];"), opensAt);
  if (opensAt < 0 || closesAt < 0) return `原来的文件里找不到 ${opens.trim()} 开头的数组`;
  const from = position[opensAt] ?? -1;
  const to = position[closesAt] ?? -1;
  const kept = new Set(position);
  const outside = lines.findIndex((_, index) => !kept.has(index) && (index <= from || index >= to));
  if (outside >= 0) return `第 ${outside + 1} 行加在了 RULES 数组之外（只能在 RULES 里新增规则）`;
  return undefined;
}

const execFileAsync = promisify(execFile);

const git = (stepDir: string, ...args: string[]): string =>
  execFileSync("git", ["-C", stepDir, ...args], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"], maxBuffer: 64 * 1024 * 1024 });

/** git 里提交的版本的逐行哈希；取不到就返回 undefined。 */
function committedLines(stepDir: string, file: string): string[] | undefined {
  try {
    return lineHashes(git(stepDir, "show", `HEAD:./${file}`));
  } catch {
    return undefined;
  }
}

/** porcelain 格式的一行 → 文件名（相对步骤目录，只留 src/…）；新文件、删掉的文件带说明。 */
function parseStatus(status: string, prefix: string): string[] {
  return status
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => {
      const raw = line.slice(3).replace(/^"|"$/g, "");
      const file = raw.startsWith(prefix) ? raw.slice(prefix.length) : raw;
      const code = line.slice(0, 2);
      return code === "??" ? `${file}（新文件）` : code.includes("D") ? `${file}（被删除）` : file;
    });
}

const STATUS = ["status", "--porcelain", "--untracked-files=all", "--", "src"];

/** 问 git：src/ 有哪些改动。返回 undefined 表示用不了 git（没装，或这份目录不在仓库里）。 */
function gitChanges(stepDir: string): string[] | undefined {
  try {
    if (git(stepDir, "ls-files", "--", "src").trim() === "") return undefined;
    // porcelain 格式的路径相对仓库根目录；去掉步骤目录的前缀
    return parseStatus(git(stepDir, ...STATUS), git(stepDir, "rev-parse", "--show-prefix").trim());
  } catch {
    return undefined;
  }
}

/** 同上，三条 git 命令同时问（--watch 要快：这一项和按行为检查同时进行）。 */
async function gitChangesAsync(stepDir: string): Promise<string[] | undefined> {
  const ask = (...args: string[]) => execFileAsync("git", ["-C", stepDir, ...args], { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 }).then((result) => result.stdout);
  try {
    const [tracked, status, prefix] = await Promise.all([ask("ls-files", "--", "src"), ask(...STATUS), ask("rev-parse", "--show-prefix")]);
    return tracked.trim() === "" ? undefined : parseStatus(status, prefix.trim());
  } catch {
    return undefined;
  }
}

/** 与清单比对：改了的、新加的、删掉的文件。 */
function manifestChanges(stepDir: string, expected: Record<string, string>): string[] {
  const actual = manifestOf(stepDir);
  const changed: string[] = [];
  for (const [file, hash] of Object.entries(actual)) {
    if (!(file in expected)) changed.push(`${file}（新文件）`);
    else if (expected[file] !== hash) changed.push(file);
  }
  for (const file of Object.keys(expected)) if (!(file in actual)) changed.push(`${file}（被删除）`);
  return changed.sort();
}

export interface SrcCheckOptions {
  /** 只为测试：临时副本不在 git 里，用现算的清单。 */
  manifest?: Manifest;
  lines?: LineManifest;
  additions?: Additions;
}

/**
 * 把 additions 允许的那个文件从改动列表里拿掉（如果它真的只是加了规则）。
 * 返回剩下的改动、一句说明（放进检查名），以及它不算「只加」时的原因。
 */
function allowAdditions(stepDir: string, changed: string[], original: () => string[] | undefined, additions?: Additions) {
  if (additions === undefined || !changed.includes(additions.file)) return { changed, note: "", problem: undefined };
  const lines = original();
  const problem = lines === undefined ? "找不到原来的版本，无法核对" : onlyAdditions(fs.readFileSync(path.join(stepDir, ...additions.file.split("/")), "utf8"), lines, additions.opens);
  if (problem !== undefined) return { changed, note: "", problem: `${additions.file}：${problem}` };
  return { changed: changed.filter((file) => file !== additions.file), note: `；${additions.file} 只在 RULES 里加了规则，这是练习允许的`, problem: undefined };
}

/** 检查 src/ 没有被改动（additions 允许的那个文件可以只加规则）。 */
export function checkSrcUnchanged(stepDir: string, step: string, options: SrcCheckOptions = {}): Check {
  return judge(stepDir, step, gitChanges(stepDir), options);
}

/** 同上，不阻塞事件循环：runExercise 让它和按行为检查同时进行。 */
export async function checkSrcUnchangedAsync(stepDir: string, step: string, options: SrcCheckOptions = {}): Promise<Check> {
  return judge(stepDir, step, await gitChangesAsync(stepDir), options);
}

/** 有 git 时按 git 的改动列表下结论，没有时（viaGit 为 undefined）按清单。 */
function judge(stepDir: string, step: string, viaGit: string[] | undefined, options: SrcCheckOptions): Check {
  const additions = options.additions;
  if (viaGit !== undefined) {
    const { changed, note, problem } = allowAdditions(stepDir, viaGit, () => additions && committedLines(stepDir, additions.file), additions);
    const name = `src/ 里的宿主代码没有改动（对照 git 里提交的版本${note}）`;
    if (changed.length === 0) return { name, ok: true };
    return { name, ok: false, saw: `git status 显示这些文件有改动：${changed.join("、")}${problem ? `。${problem}` : ""}` };
  }
  const expected = (options.manifest ?? readShippedManifest())[step];
  const base = "src/ 里的宿主代码没有改动（没有 git，对照检查器随附的文件哈希清单";
  if (expected === undefined) return { name: `${base}）`, ok: false, saw: `清单里没有 ${step}，无法核对` };
  const lines = () => additions && (options.lines ?? readShippedLines())[`${step}/${additions.file}`];
  const { changed, note, problem } = allowAdditions(stepDir, manifestChanges(stepDir, expected), lines, additions);
  const name = `${base}${note}）`;
  if (changed.length === 0) return { name, ok: true };
  return { name, ok: false, saw: `与清单不同的文件：${changed.join("、")}${problem ? `。${problem}` : ""}` };
}
