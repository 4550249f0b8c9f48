import path from "node:path";
import { diffLines } from "diff";
import { paint } from "./color.ts";
import { gitFiles, worktreeFiles, type StepFiles } from "./step-files.ts";
import { DEFAULT_TITLES, defaultGroupOf, groupFiles, isNoise, parseReadingOrder, type GroupedFiles } from "./reading-order.ts";
import { normalizeEol } from "./text.ts";
import { unifiedDiff } from "./unified-diff.ts";

export { isNoise } from "./reading-order.ts";

/** 增删行数的合计按三类算：src/ 是这一章的代码，其次是其他文件（扩展、配置、说明），测试最后 */
export type FileGroup = "src" | "other" | "test";
export const GROUP_TITLE: Record<FileGroup, string> = DEFAULT_TITLES;
export const groupOf: (file: string) => FileGroup = defaultGroupOf;

const GROUP_ORDER: FileGroup[] = ["src", "other", "test"];

export type FileStatus = "added" | "removed" | "changed";

export interface FileChange {
  file: string;
  status: FileStatus;
  /** 增加与删除的行数（二进制文件为 0）；只差缩进的行不算 */
  plus: number;
  minus: number;
  binary: boolean;
  /**
   * 和上一步的哪个文件比：没有这个字段就是同名的文件（新增的和空文件比）；
   * 给了路径，这个文件是从上一步的那个文件挪来或改来的（比如 step07 的 main.ts 成了 step08 的 cli.ts）；
   * null：同名文件原来的内容整个挪走了，这个文件当作新写的。
   */
  origin?: string | null;
}

export interface StepComparison {
  from: string;
  to: string;
  /** "git"：比的是提交的版本；"worktree"：目录里现有的文件 */
  source: StepFiles["kind"];
  /** 按阅读顺序排好的改动 */
  changes: FileChange[];
  /** 同样的改动按新步骤 README 的「阅读顺序」分组（没写的落到默认组） */
  groups: GroupedFiles[];
  added: string[];
  removed: string[];
  changed: string[];
  unchanged: number;
  /** 两个步骤里学习者自己加的、没有提交的文件（不参与比较） */
  untracked: string[];
  /** 提交之后又改过的文件（比较用的是提交的版本） */
  modified: string[];
  /** 文件的文本内容（已统一换行），二进制文件或不存在时为 undefined */
  read(side: "from" | "to", file: string): string | undefined;
}

export interface CompareOptions {
  /** true：比较目录里现有的文件（包括自己加的）；默认比较 git 里提交的版本 */
  worktree?: boolean;
  /** 已经打开的来源（比较很多对步骤时共用一个，git 只读一遍）；给了它 worktree 就不管了 */
  source?: StepFiles;
}

// 含 NUL 字节就当二进制，不做文本 diff
function asText(buf: Buffer | undefined): string | undefined {
  if (buf === undefined || buf.subarray(0, 8000).includes(0)) return undefined;
  return normalizeEol(buf.toString("utf8"));
}

/**
 * 增删行数：与 unified diff 里的 +/- 行一致。只差行首行尾空白的两行算相同：
 * 一段代码被包进一个函数、整体缩进了一层，不是这一章要读的改动。
 */
export function countLines(a: string, b: string): { plus: number; minus: number } {
  let plus = 0;
  let minus = 0;
  for (const part of diffLines(a, b, { ignoreWhitespace: true })) {
    if (part.added) plus += part.count ?? 0;
    else if (part.removed) minus += part.count ?? 0;
  }
  return { plus, minus };
}

export function compareSteps(root: string, from: string, to: string, options: CompareOptions = {}): StepComparison {
  const source = options.source ?? (options.worktree ? undefined : gitFiles(root)) ?? worktreeFiles(root);
  const fromFiles = new Set(source.files(from));
  const toFiles = new Set(source.files(to));
  const cache = new Map<string, string | undefined>();
  const read = (side: "from" | "to", file: string): string | undefined => {
    const key = `${side}:${file}`;
    if (!cache.has(key)) cache.set(key, asText(source.read(side === "from" ? from : to, file)));
    return cache.get(key);
  };

  const changes: FileChange[] = [];
  let unchanged = 0;
  for (const file of new Set([...fromFiles, ...toFiles])) {
    const status: FileStatus = !fromFiles.has(file) ? "added" : !toFiles.has(file) ? "removed" : "changed";
    const a = status === "added" ? "" : read("from", file);
    const b = status === "removed" ? "" : read("to", file);
    if (a === undefined || b === undefined) {
      // 二进制：只比字节
      const same = status === "changed" && source.read(from, file)?.equals(source.read(to, file) ?? Buffer.alloc(0)) === true;
      if (same) unchanged++;
      else changes.push({ file, status, plus: 0, minus: 0, binary: true });
      continue;
    }
    if (status === "changed" && a === b) {
      unchanged++;
      continue;
    }
    changes.push({ file, status, ...countLines(a, b), binary: false });
  }
  findOrigins(changes, read);
  const groups = groupFiles(
    changes.map((c) => c.file),
    parseReadingOrder(asText(source.read(to, "README.md"))),
  );
  const order = groups.flatMap((g) => g.files);
  changes.sort((x, y) => order.indexOf(x.file) - order.indexOf(y.file));
  const pick = (s: FileStatus) => changes.filter((c) => c.status === s && c.origin === undefined).map((c) => c.file);
  const localFrom = source.local(from);
  const localTo = source.local(to);
  const untracked = [...localFrom.untracked.map((f) => `${from}/${f}`), ...localTo.untracked.map((f) => `${to}/${f}`)];
  const modified = [...localFrom.modified.map((f) => `${from}/${f}`), ...localTo.modified.map((f) => `${to}/${f}`)];
  return { from, to, source: source.kind, changes, groups, added: pick("added"), removed: pick("removed"), changed: pick("changed"), unchanged, untracked, modified, read };
}

/**
 * 旧文本 a 有多少活在新文本 b 里：相同的非空行（不计首尾空白）占 a 的比例。
 * 相同的行连 b 的四分之一都不到时算 0：几行 import 碰巧一样，不等于 b 是从 a 改来的。
 */
function similarity(a: string, b: string): number {
  const lines = (text: string) => text.split("\n").filter((line) => line.trim() !== "").length;
  let same = 0;
  for (const part of diffLines(a, b, { ignoreWhitespace: true })) {
    if (!part.added && !part.removed) same += lines(part.value);
  }
  return lines(a) === 0 || same < lines(b) / 4 ? 0 : same / lines(a);
}

/**
 * 挪了位置、换了名字的文件：上一步某个文件的一半以上的行活在一个新增的文件里，就拿新文件和它比（像 git 的改名检测）。
 * 来源可以是删掉的文件，也可以是还在、但大半内容都搬走了的文件（step08 把 main.ts 的程序搬进 cli.ts，main.ts 只剩几行）：
 * 这时那个留下的文件当作新写的。这样 npm run diff 显示的是真正改了的行，而不是一删一增两整个文件。
 */
function findOrigins(changes: FileChange[], read: (side: "from" | "to", file: string) => string | undefined): void {
  const sources = changes.filter((c) => !c.binary && c.status !== "added");
  // 先粗筛：两边各有哪些行、各几次（不管次序），一样的行数是逐行 diff 能对上的行数的上限；
  // 上限都不够的不必再 diff（一对步骤有上百个文件，两两 diff 太慢）
  const lineCounts = (text: string): Map<string, number> => {
    const counts = new Map<string, number>();
    for (const line of text.split("\n")) if (line.trim() !== "") counts.set(line.trim(), (counts.get(line.trim()) ?? 0) + 1);
    return counts;
  };
  const total = (counts: Map<string, number>): number => [...counts.values()].reduce((sum, n) => sum + n, 0);
  const oldLines = new Map(sources.map((source) => [source.file, lineCounts(read("from", source.file) ?? "")]));
  for (const change of changes.filter((c) => !c.binary && c.status === "added")) {
    const text = read("to", change.file) ?? "";
    const newLines = lineCounts(text);
    let best: { source: FileChange; score: number } | undefined;
    for (const source of sources) {
      const before = oldLines.get(source.file)!;
      let shared = 0;
      for (const [line, n] of before) shared += Math.min(n, newLines.get(line) ?? 0);
      if (shared < total(before) / 2 || shared < total(newLines) / 4) continue;
      const old = read("from", source.file) ?? "";
      const score = similarity(old, text);
      // 还在的文件：只有它原来的内容更像这个新文件、而不像它自己的新版本时，才算搬走了
      const stayed = source.status === "changed" ? similarity(old, read("to", source.file) ?? "") : 0;
      if (score >= 0.5 && score > stayed && (best === undefined || score > best.score)) best = { source, score };
    }
    if (best === undefined) continue;
    const { source } = best;
    sources.splice(sources.indexOf(source), 1);
    Object.assign(change, countLines(read("from", source.file) ?? "", text), { origin: source.file });
    if (source.status === "removed") changes.splice(changes.indexOf(source), 1);
    else Object.assign(source, countLines("", read("to", source.file) ?? ""), { origin: null });
  }
}

/** 比较的两边：上一步的哪个文件（标签与内容），这一步的内容 */
export function diffSides(c: Pick<StepComparison, "from" | "to" | "read">, x: FileChange): { oldLabel: string; oldText: string; newLabel: string; newText: string } {
  const newText = x.status === "removed" ? "" : (c.read("to", x.file) ?? "");
  const base = x.origin === undefined ? (x.status === "added" ? undefined : x.file) : (x.origin ?? undefined);
  return {
    oldLabel: base === undefined ? "/dev/null" : `${c.from}/${base}`,
    oldText: base === undefined ? "" : (c.read("from", base) ?? ""),
    newLabel: `${c.to}/${x.file}`,
    newText,
  };
}

/** 文件状态的说法：（新增）（删除），挪来或改来的说出来源 */
export function statusWord(x: FileChange): string {
  if (typeof x.origin === "string") return x.plus + x.minus === 0 ? `（从 ${x.origin} 挪来，内容没变）` : `（由 ${x.origin} 改来）`;
  if (x.origin === null) return "（原来的内容搬走了，当作新写的）";
  return { added: "（新增）", removed: "（删除）", changed: "" }[x.status];
}

export interface FormatOptions {
  color?: boolean;
  /** 只看 src/ */
  srcOnly?: boolean;
  /** 只看统计：每个文件的 +/- 行数与各组合计，不打印 diff */
  stat?: boolean;
}

/** 各组的合计：文件数与增删行数 */
export function totals(changes: FileChange[]): Record<FileGroup, { files: number; plus: number; minus: number }> {
  const t = { src: { files: 0, plus: 0, minus: 0 }, other: { files: 0, plus: 0, minus: 0 }, test: { files: 0, plus: 0, minus: 0 } };
  for (const c of changes) {
    const g = t[groupOf(c.file)];
    g.files++;
    g.plus += c.plus;
    g.minus += c.minus;
  }
  return t;
}

export function formatStepDiff(c: StepComparison, options: FormatOptions | boolean = {}): string {
  const opts: FormatOptions = typeof options === "boolean" ? { color: options } : options;
  const p = paint(opts.color ?? false);
  const changes = opts.srcOnly ? c.changes.filter((x) => groupOf(x.file) === "src") : c.changes;
  const out: string[] = [];
  const tag = (f: string) => (isNoise(f) ? p.dim("（每步都会变，属预期噪音）") : "");
  const count = (plus: number, minus: number) => `${p.green(`+${plus}`)} ${p.red(`−${minus}`)}`;

  const scope = opts.srcOnly ? "（只看 src/）" : "";
  const basis = c.source === "git" ? "比较的是 git 里提交的版本" : "比较的是目录里现有的文件";
  out.push(p.bold(`步骤对比：${c.from} → ${c.to}${scope}`));
  out.push(p.dim(basis));
  const count3 = (s: FileStatus) => changes.filter((x) => x.status === s && x.origin === undefined).length;
  const unchanged = opts.srcOnly ? "" : `，未变 ${c.unchanged} 个`;
  const derived = changes.filter((x) => typeof x.origin === "string").length;
  const moved = derived > 0 ? `，挪来或改来 ${derived} 个` : "";
  out.push(`新增 ${count3("added")} 个文件，删除 ${count3("removed")} 个，修改 ${count3("changed") + changes.filter((x) => x.origin === null).length} 个${moved}${unchanged}`);
  const t = totals(changes);
  const summary = GROUP_ORDER.filter((g) => t[g].files > 0).map(
    (g) => `${GROUP_TITLE[g]} ${t[g].files} 个文件 ${count(t[g].plus, t[g].minus)}（共 ${t[g].plus + t[g].minus} 行）`,
  );
  if (summary.length > 0) out.push(summary.join("；"));

  // 学习者自己的文件：只列一次，不参与比较
  if (c.untracked.length > 0) {
    out.push("", p.dim("没有提交的文件（你自己加的？不参与比较）："));
    for (const f of c.untracked) out.push(p.dim(`  ? ${f}`));
  }
  if (c.modified.length > 0) {
    out.push("", p.dim("提交之后改过的文件（比较用的是提交的版本；想比现在的内容，加 --worktree）："));
    for (const f of c.modified) out.push(p.dim(`  * ${f}`));
  }

  if (changes.length === 0) {
    out.push("", opts.srcOnly ? "两个步骤的 src/ 完全相同。" : "两个步骤的内容完全相同。");
    return out.join("\n") + "\n";
  }

  // 文件清单：按阅读顺序的组，每行带增删行数
  const width = Math.max(...changes.map((x) => displayWidth(x.file + statusWord(x))));
  const byFile = new Map(changes.map((x) => [x.file, x]));
  const groups = c.groups
    .map((g) => ({ title: g.title, changes: g.files.flatMap((f) => byFile.get(f) ?? []) }))
    .filter((g) => g.changes.length > 0);
  for (const g of groups) {
    out.push("", `${g.title}：`);
    for (const x of g.changes) {
      const mark = x.status === "added" && x.origin === undefined ? p.green("+") : x.status === "removed" ? p.red("-") : p.cyan("~");
      const name = x.file + statusWord(x);
      const pad = " ".repeat(Math.max(1, width - displayWidth(name) + 2));
      out.push(`  ${mark} ${name}${pad}${x.binary ? "（二进制）" : count(x.plus, x.minus)}${tag(x.file)}`);
    }
  }
  if (opts.stat) return out.join("\n") + "\n";

  const section = (file: string, body: string) => out.push("", p.bold(`━━ ${file} ━━`), body);
  for (const g of groups) {
    out.push("", p.bold(`════ ${g.title} ════`));
    for (const x of g.changes) {
      const title = x.file + statusWord(x);
      if (x.binary) section(title, "（二进制文件，不显示内容）");
      else if (x.status === "removed") section(title, `（整个文件删除，共 ${x.minus} 行）`);
      else section(title, fileDiff(c, x, opts.color ?? false));
    }
  }
  return out.join("\n") + "\n";
}

/** 一个文本文件的 unified diff；新增的文件显示全文 */
function fileDiff(c: StepComparison, x: FileChange, color: boolean): string {
  const sides = diffSides(c, x);
  if (sides.oldLabel === "/dev/null") return sides.newText === "" ? "（空文件）" : unifiedDiff(sides.oldLabel, sides.newLabel, "", sides.newText, { color, context: 0 });
  return unifiedDiff(sides.oldLabel, sides.newLabel, sides.oldText, sides.newText, { color });
}

/** 终端里的显示宽度：汉字等全角字符占两格，对齐才不会歪 */
function displayWidth(s: string): number {
  let w = 0;
  for (const ch of s) w += /[\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]/.test(ch) ? 2 : 1;
  return w;
}
