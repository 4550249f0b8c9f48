import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { labsDir, toPosix } from "./paths.ts";
import { walkFiles } from "./walk-files.ts";

/**
 * 一个步骤里「参与比较的文件」从哪来。
 *
 * 默认取 git 里提交的版本：学习者在步骤里新建的文件（练习、草稿）不是这一章的改动，
 * 不该在 diff 里显示成「新增」或「删除」。没有 git（例如下载的压缩包）时退回到目录里现有的文件。
 */
export interface StepFiles {
  /** "git"：提交的版本；"worktree"：目录里现有的文件 */
  kind: "git" | "worktree";
  /** 步骤里的文件（正斜杠相对路径，已排序） */
  files(step: string): string[];
  /** 文件内容；不存在时 undefined */
  read(step: string, file: string): Buffer | undefined;
  /** 目录里有、但没有提交的文件（只有 git 来源才有），以及提交后又改过的文件 */
  local(step: string): { untracked: string[]; modified: string[] };
}

// 与 walkFiles 一致：依赖、会话、锁文件、日志不算步骤的内容
const IGNORED = /(^|\/)(node_modules|\.sessions|\.git)(\/|$)|(^|\/)(package-lock\.json|\.DS_Store)$|\.log$/;

export function worktreeFiles(root: string): StepFiles {
  const dir = (step: string) => path.join(labsDir(root), step);
  return {
    kind: "worktree",
    files: (step) => walkFiles(dir(step)),
    read: (step, file) => {
      const abs = path.join(dir(step), ...file.split("/"));
      return fs.existsSync(abs) ? fs.readFileSync(abs) : undefined;
    },
    local: () => ({ untracked: [], modified: [] }),
  };
}

function git(root: string, args: string[], input?: string): Buffer | undefined {
  const r = spawnSync("git", args, { cwd: root, input, maxBuffer: 256 * 1024 * 1024 });
  return r.status === 0 ? r.stdout : undefined;
}

const splitZ = (out: Buffer | undefined): string[] => (out ? out.toString("utf8").split("\0").filter((s) => s !== "") : []);

/** 用 git 读提交的版本；root 不在 git 仓库里（或没装 git）时返回 undefined */
export function gitFiles(root: string): StepFiles | undefined {
  const topOut = git(root, ["rev-parse", "--show-toplevel"]);
  if (topOut === undefined || git(root, ["rev-parse", "--verify", "-q", "HEAD"]) === undefined) return undefined;
  // 之后的 git 命令都在仓库根运行：路径参数与输出都相对于它
  const top = topOut.toString("utf8").trim();
  const stepPrefix = (step: string) => toPosix(path.relative(fs.realpathSync(top), path.join(fs.realpathSync(labsDir(root)), step)));
  const blobs = new Map<string, Map<string, string>>(); // step → 文件 → blob id
  const contents = new Map<string, Buffer>(); // blob id → 内容

  const list = (step: string): Map<string, string> => {
    let files = blobs.get(step);
    if (files === undefined) {
      files = new Map();
      const base = `${stepPrefix(step)}/`;
      for (const entry of splitZ(git(top, ["ls-tree", "-r", "-z", "HEAD", "--", base]))) {
        const tab = entry.indexOf("\t");
        const [, type, id] = entry.slice(0, tab).split(" ");
        const file = entry.slice(tab + 1).slice(base.length);
        if (type === "blob" && id !== undefined && !IGNORED.test(file)) files.set(file, id);
      }
      blobs.set(step, files);
    }
    return files;
  };
  const locals = new Map<string, { untracked: string[]; modified: string[] }>();
  const localOf = (step: string) => {
    const known = locals.get(step);
    if (known !== undefined) return known;
    const base = `${stepPrefix(step)}/`;
    const strip = (f: string) => f.slice(base.length);
    const untracked = splitZ(git(top, ["ls-files", "-z", "--others", "--exclude-standard", "--", base])).map(strip);
    const modified = splitZ(git(top, ["diff", "-z", "--name-only", "HEAD", "--", base])).map(strip);
    const result = { untracked: untracked.filter((f) => !IGNORED.test(f)).sort(), modified: modified.filter((f) => !IGNORED.test(f)).sort() };
    locals.set(step, result);
    return result;
  };
  return {
    kind: "git",
    files: (step) => [...list(step).keys()].sort(),
    read: (step, file) => {
      const id = list(step).get(file);
      if (id === undefined) return undefined;
      if (!contents.has(id)) readBlobs(top, [...list(step).values()], contents);
      return contents.get(id);
    },
    local: localOf,
  };
}

/** 一次 git cat-file --batch 读出一批 blob：每个文件起一个 git 进程太慢 */
function readBlobs(top: string, ids: string[], into: Map<string, Buffer>): void {
  const out = git(top, ["cat-file", "--batch"], ids.join("\n") + "\n");
  if (out === undefined) return;
  let at = 0;
  while (at < out.length) {
    const eol = out.indexOf(0x0a, at);
    if (eol < 0) break;
    const [id, , size] = out.subarray(at, eol).toString("utf8").split(" ");
    const length = Number(size);
    if (id === undefined || !Number.isInteger(length)) break;
    into.set(id, out.subarray(eol + 1, eol + 1 + length));
    at = eol + 1 + length + 1; // 内容之后还有一个换行
  }
}
