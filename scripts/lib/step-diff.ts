import fs from "node:fs";
import path from "node:path";
import { paint } from "./color.ts";
import { stepDir } from "./steps.ts";
import { normalizeEol } from "./text.ts";
import { unifiedDiff } from "./unified-diff.ts";
import { walkFiles } from "./walk-files.ts";

// 每一步都会改到的文件：变化是预期内的「噪音」，照样显示，但排在最后
const NOISE = new Set(["package.json", "README.md", "expected-output.txt"]);

export function isNoise(file: string): boolean {
  return NOISE.has(path.posix.basename(file));
}

export interface StepComparison {
  from: string;
  to: string;
  added: string[];
  removed: string[];
  changed: string[];
  unchanged: number;
  /** 文件的文本内容（已统一换行），二进制文件为 undefined */
  read(side: "from" | "to", file: string): string | undefined;
}

// 含 NUL 字节就当二进制，不做文本 diff
function readText(file: string): string | undefined {
  const buf = fs.readFileSync(file);
  if (buf.subarray(0, 8000).includes(0)) return undefined;
  return normalizeEol(buf.toString("utf8"));
}

// 代码文件在前、噪音文件在后，各自按路径排序
function noiseLast(files: string[]): string[] {
  return [...files.filter((f) => !isNoise(f)), ...files.filter(isNoise)];
}

export function compareSteps(root: string, from: string, to: string): StepComparison {
  const fromDir = stepDir(root, from);
  const toDir = stepDir(root, to);
  const fromFiles = new Set(walkFiles(fromDir));
  const toFiles = new Set(walkFiles(toDir));
  const read = (side: "from" | "to", file: string) => readText(path.join(side === "from" ? fromDir : toDir, file));

  const added = [...toFiles].filter((f) => !fromFiles.has(f));
  const removed = [...fromFiles].filter((f) => !toFiles.has(f));
  const changed: string[] = [];
  let unchanged = 0;
  for (const f of fromFiles) {
    if (!toFiles.has(f)) continue;
    const a = read("from", f);
    const b = read("to", f);
    const same = a !== undefined && b !== undefined ? a === b : fs.readFileSync(path.join(fromDir, f)).equals(fs.readFileSync(path.join(toDir, f)));
    if (same) unchanged++;
    else changed.push(f);
  }
  return { from, to, added: noiseLast(added.sort()), removed: noiseLast(removed.sort()), changed: noiseLast(changed.sort()), unchanged, read };
}

export function formatStepDiff(c: StepComparison, color = false): string {
  const p = paint(color);
  const out: string[] = [];
  const tag = (f: string) => (isNoise(f) ? p.dim("（每步都会变，属预期噪音）") : "");

  out.push(p.bold(`步骤对比：${c.from} → ${c.to}`));
  out.push(`新增 ${c.added.length} 个文件，删除 ${c.removed.length} 个，修改 ${c.changed.length} 个，未变 ${c.unchanged} 个`);
  if (c.added.length + c.removed.length + c.changed.length === 0) {
    out.push("", "两个步骤的内容完全相同。");
    return out.join("\n") + "\n";
  }
  const list = (title: string, files: string[], mark: string) => {
    out.push("", `${title}：`);
    if (files.length === 0) out.push("  （无）");
    for (const f of files) out.push(`  ${mark} ${f}${tag(f)}`);
  };
  list("新增", c.added, p.green("+"));
  list("删除", c.removed, p.red("-"));
  list("修改", c.changed, p.cyan("~"));

  const section = (file: string, body: string) => {
    out.push("", p.bold(`━━ ${file} ━━`), body);
  };
  const diffChanged = (f: string) => {
    const a = c.read("from", f);
    const b = c.read("to", f);
    if (a === undefined || b === undefined) section(f, "（二进制文件，内容不同，不显示 diff）");
    else section(f, unifiedDiff(`${c.from}/${f}`, `${c.to}/${f}`, a, b, { color }));
  };
  const diffAdded = (f: string) => {
    const b = c.read("to", f);
    if (b === undefined) section(`${f}（新增）`, "（二进制文件，不显示内容）");
    else if (b === "") section(`${f}（新增）`, "（空文件）");
    else section(`${f}（新增）`, unifiedDiff("/dev/null", `${c.to}/${f}`, "", b, { color, context: 0 }));
  };
  // 先看真正的代码变化，再看新文件全文，噪音文件统一放到最后
  for (const f of c.changed.filter((f) => !isNoise(f))) diffChanged(f);
  for (const f of c.added.filter((f) => !isNoise(f))) diffAdded(f);
  for (const f of c.changed.filter(isNoise)) diffChanged(f);
  for (const f of c.added.filter(isNoise)) diffAdded(f);
  return out.join("\n") + "\n";
}
