/**
 * 「你没有改动宿主代码」这句话要有依据：把步骤的 src/ 与提交的版本比一比。
 *
 * 有 git 时问 git（git status 只看 src/，连新建的文件也算）；
 * 没有 git（例如下载的压缩包）或这份副本不在 git 里时，改用随检查器提交的哈希清单
 * src-manifest.json 逐个文件比对。两种方式都在检查名里写明，不声称没核对过的事。
 */

import { execFileSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

import { walkFiles } from "../walk-files.ts";
import type { Check } from "./types.ts";

/** 步骤名 → { "src/…": sha256 }。 */
export type Manifest = Record<string, Record<string, string>>;

export const MANIFEST_FILE = path.join(path.dirname(fileURLToPath(import.meta.url)), "src-manifest.json");

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

/** 问 git：src/ 有哪些改动。返回 undefined 表示用不了 git（没装，或这份目录不在仓库里）。 */
function gitChanges(stepDir: string): string[] | undefined {
  const git = (...args: string[]): string =>
    execFileSync("git", ["-C", stepDir, ...args], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
  try {
    if (git("ls-files", "--", "src").trim() === "") return undefined;
    // porcelain 格式的路径相对仓库根目录；去掉步骤目录的前缀，只留 src/…
    const prefix = git("rev-parse", "--show-prefix").trim();
    const status = git("status", "--porcelain", "--untracked-files=all", "--", "src");
    return status
      .split("\n")
      .filter((line) => line.trim() !== "")
      .map((line) => line.slice(3).replace(/^"|"$/g, ""))
      .map((file) => (file.startsWith(prefix) ? file.slice(prefix.length) : file));
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

/** 检查 src/ 没有被改动。manifest 参数只为测试：临时副本不在 git 里，用现算的清单。 */
export function checkSrcUnchanged(stepDir: string, step: string, manifest: Manifest = readShippedManifest()): Check {
  const viaGit = gitChanges(stepDir);
  if (viaGit !== undefined) {
    const name = "src/ 里的宿主代码没有改动（对照 git 里提交的版本）";
    return viaGit.length === 0 ? { name, ok: true } : { name, ok: false, saw: `git status 显示这些文件有改动：${viaGit.join("、")}` };
  }
  const expected = manifest[step];
  const name = "src/ 里的宿主代码没有改动（没有 git，对照检查器随附的文件哈希清单）";
  if (expected === undefined) return { name, ok: false, saw: `清单里没有 ${step}，无法核对` };
  const changed = manifestChanges(stepDir, expected);
  return changed.length === 0 ? { name, ok: true } : { name, ok: false, saw: `与清单不同的文件：${changed.join("、")}` };
}
