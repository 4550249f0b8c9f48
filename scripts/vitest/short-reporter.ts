/**
 * 根目录 `npm test` 的输出：一屏就能看完。
 *   - 每个步骤或包一行：文件数、测试数（跳过的单独写）、用时；最后一行是总计；
 *   - 跳过的测试按文件与原因分组，每组一行：几个、为什么（测试自己的 skip(原因)，或文件在加载时打印的「[跳过] …」那一行）；
 *     CI 里一条都不该有（见 .ci/skip-allow-list.txt）；
 *   - 失败的测试打印完整细节：名字、错误、diff、调用栈，以及它运行时打印的东西；
 *   - 通过的测试打印的东西（console.log 等）一律不显示；
 *   - 与前一步逐字节相同、这次只跑了一份的测试文件，数目写在合计上面（scripts/vitest/once-per-code.ts）；
 *   - 只有输出是终端时才用颜色（NO_COLOR 关掉，FORCE_COLOR 打开）。
 */
import path from "node:path";
import type { Reporter, TestCase, TestModule, TestSuite } from "vitest/node";
import type { SerializedError, UserConsoleLog } from "vitest";
import type { OncePerCode, OncePlan } from "./once-per-code.ts";

type Vitest = Parameters<NonNullable<Reporter["onInit"]>>[0];

export interface Paint {
  red(s: string): string;
  green(s: string): string;
  yellow(s: string): string;
  dim(s: string): string;
}

export function shouldColor(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== "0") return true;
  return stream.isTTY === true;
}

export function makePaint(color: boolean): Paint {
  const wrap = (code: number) => (s: string) => (color ? `\x1b[${code}m${s}\x1b[0m` : s);
  return { red: wrap(31), green: wrap(32), yellow: wrap(33), dim: wrap(2) };
}

/** 测试文件属于哪一组：步骤目录、labs 下的包、scripts、solutions…… */
export function groupOf(relative: string): string {
  const parts = relative.split(/[\\/]/);
  if (parts[0] === "labs" && parts[1] === "mini-agent-harness" && parts[2] !== undefined) return parts[2];
  if (parts[0] === "labs" && parts[1] !== undefined) return parts[1];
  return parts[0] ?? relative;
}

export interface GroupRow {
  group: string;
  files: number;
  passed: number;
  failed: number;
  skipped: number;
  /** 这一组各文件用时之和（毫秒）：几个文件同时跑，所以加起来可能比总墙钟还长 */
  ms: number;
}

export function formatSeconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)}s`;
}

/** 一组一行，列对齐；失败、跳过的数字只在不为 0 时出现 */
export function formatRow(row: GroupRow, width: number, p: Paint): string {
  const mark = row.failed > 0 ? p.red("✗") : p.green("✓");
  const extra = [row.failed > 0 ? p.red(`${row.failed} 失败`) : "", row.skipped > 0 ? p.yellow(`${row.skipped} 跳过`) : ""].filter(Boolean).join("，");
  const files = `${row.files} 个文件`.padStart(8);
  const tests = `${row.passed} 通过`.padStart(8);
  return `${mark} ${row.group.padEnd(width)}  ${files}  ${tests}${extra ? `，${extra}` : ""}  ${p.dim(formatSeconds(row.ms))}`;
}

/** 一个跳过的测试：哪个文件、它自己给的原因（test.skip(原因) / context.skip(原因)） */
export interface Skipped {
  file: string;
  note?: string | undefined;
}

/** 测试文件加载时打印的跳过说明（约定：console.warn("[跳过] 什么：为什么")）：去掉开头的「[跳过]」 */
export function skipReason(log: string): string | undefined {
  const m = /^\s*\[?跳过\]?\s*/.exec(log);
  return m === null ? undefined : log.slice(m[0].length).trim().replace(/\s*\n\s*/g, " ");
}

/**
 * 跳过的测试按「文件 + 原因」分组，每组一行。原因依次取：测试自己给的；文件打印的跳过说明；
 * 按名字过滤（-t）时没选上的；都没有就照实说没给原因。
 */
export function formatSkips(skipped: readonly Skipped[], fileReasons: ReadonlyMap<string, string[]>, filtered: boolean): string[] {
  const groups = new Map<string, { file: string; reason: string; count: number }>();
  for (const { file, note } of skipped) {
    const printed = fileReasons.get(file) ?? [];
    const reason = note || (printed.length > 0 ? printed.join("；") : filtered ? "不在 -t 选中的测试里" : "没有给出原因");
    const key = `${file}\0${reason}`;
    const group = groups.get(key) ?? { file, reason, count: 0 };
    group.count++;
    groups.set(key, group);
  }
  return [...groups.values()].map((g) => `${g.file}：${g.count} 个——${g.reason}`);
}

function indent(text: string, prefix = "    "): string {
  return text
    .replace(/\s+$/, "")
    .split("\n")
    .map((l) => prefix + l)
    .join("\n");
}

const ANSI = /\x1b\[[0-9;]*m/g;

/** 调用栈里 vitest 自己的帧对读者没有用：去掉，只留测试和被测代码的 */
export function trimStack(stack: string): string {
  return stack
    .split("\n")
    .filter((line) => !/node_modules[\\/](@vitest|vitest)[\\/]|^\s+at new Promise \(<anonymous>\)$/.test(line))
    .join("\n");
}

export function formatError(error: SerializedError): string {
  const parts: string[] = [];
  const stack = trimStack(error.stack ?? "");
  // stack 的第一行通常就是「名字: 消息」；没有时单独写消息
  const head = `${error.name ?? "Error"}: ${error.message}`;
  if (!stack.startsWith(head) && !stack.includes(error.message)) parts.push(head);
  if (typeof error.diff === "string" && error.diff !== "") parts.push(error.diff);
  parts.push(stack || head);
  return parts.join("\n");
}

/** 「只跑一次」那一行：多少个文件、各在哪一步，判断用了多久；没能判断时说原因 */
export function formatOnce(plan: OncePlan, relative: (file: string) => string): string {
  if (plan.error !== undefined) return `没能判断哪些测试文件与前一步相同（${plan.error}），全部照跑`;
  const perGroup = new Map<string, number>();
  for (const file of plan.copies.keys()) {
    const group = groupOf(relative(file));
    perGroup.set(group, (perGroup.get(group) ?? 0) + 1);
  }
  const where = [...perGroup].sort(([a], [b]) => (a < b ? -1 : 1)).map(([g, n]) => `${g} ${n}`).join("、");
  return `${plan.copies.size} 个文件与前一步逐字节相同，只跑一次${where ? `（${where}）` : ""}；判断用时 ${formatSeconds(plan.ms)}`;
}

export default class ShortReporter implements Reporter {
  private vitest!: Vitest;
  private out: NodeJS.WritableStream;
  private p: Paint;
  private color: boolean;
  private once: OncePerCode | undefined;
  private plan: OncePlan | undefined;
  private started = Date.now();
  /** 每个测试（或文件）运行时打印的东西：只有它失败时才显示 */
  private logs = new Map<string, UserConsoleLog[]>();

  constructor(options: { out?: NodeJS.WritableStream & { isTTY?: boolean }; color?: boolean; oncePerCode?: OncePerCode } = {}) {
    this.out = options.out ?? process.stdout;
    this.once = options.oncePerCode;
    this.color = options.color ?? shouldColor(this.out as { isTTY?: boolean });
    this.p = makePaint(this.color);
  }

  onInit(vitest: Vitest): void {
    this.vitest = vitest;
    this.started = Date.now();
  }

  async onTestRunStart(specifications: ReadonlyArray<{ moduleId: string }>): Promise<void> {
    // 与排序器问的是同一份计划（同一个文件列表只算一次）
    this.plan = this.once === undefined ? undefined : await this.once.plan(specifications.map((s) => s.moduleId), this.vitest?.config.root ?? process.cwd());
    const count = this.plan?.run.length ?? specifications.length;
    const copies = this.plan !== undefined && this.plan.copies.size > 0 ? `（另有 ${this.plan.copies.size} 个与前一步逐字节相同，不再跑）` : "";
    this.out.write(this.p.dim(`运行 ${count} 个测试文件${copies}……（只显示每组一行；失败的测试打印全部细节）`) + "\n");
  }

  onUserConsoleLog(log: UserConsoleLog): void {
    const key = log.taskId ?? "";
    const list = this.logs.get(key) ?? [];
    list.push(log);
    this.logs.set(key, list);
  }

  private relative(file: string): string {
    return path.relative(this.vitest?.config.root ?? process.cwd(), file).split(path.sep).join("/");
  }

  private printedLogs(id: string): string {
    const list = this.logs.get(id);
    if (!list || list.length === 0) return "";
    const text = list.map((l) => `[${l.type}] ${l.content.replace(/\n$/, "")}`).join("\n");
    return `\n  ${this.p.dim("它运行时打印的：")}\n${indent(text)}`;
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<SerializedError>): void {
    const p = this.p;
    const rows = new Map<string, GroupRow>();
    const failures: string[] = [];
    const skips: Skipped[] = [];
    const fileReasons = new Map<string, string[]>();

    for (const mod of modules) {
      const rel = this.relative(mod.moduleId);
      const group = groupOf(rel);
      const row = rows.get(group) ?? { group, files: 0, passed: 0, failed: 0, skipped: 0, ms: 0 };
      rows.set(group, row);
      row.files++;
      row.ms += mod.diagnostic().duration;

      // 文件本身出错（import 失败、语法错误）或 beforeAll/afterAll 出错：没有哪个测试替它报告
      const moduleErrors = mod.errors();
      if (moduleErrors.length > 0) {
        row.failed++;
        failures.push(`${p.red("✗")} ${rel}\n${moduleErrors.map((e) => indent(formatError(e))).join("\n")}${this.printedLogs(mod.id)}`);
      }
      for (const suite of mod.children.allSuites()) row.failed += this.suiteErrors(suite, rel, failures);

      for (const test of mod.children.allTests()) {
        const result = test.result();
        if (result.state === "passed") row.passed++;
        else if (result.state === "failed") {
          row.failed++;
          failures.push(this.formatFailure(test, rel));
        } else {
          row.skipped++;
          skips.push({ file: rel, note: result.state === "skipped" ? result.note : undefined });
        }
      }
      // 这个文件（加载时、或它的测试里）打印的跳过说明
      const reasons = [mod.id, ...[...mod.children.allTests()].map((t) => t.id), ...[...mod.children.allSuites()].map((t) => t.id)]
        .flatMap((id) => this.logs.get(id) ?? [])
        .flatMap((log) => skipReason(log.content) ?? []);
      if (reasons.length > 0) fileReasons.set(rel, [...new Set(reasons)]);
    }

    for (const error of unhandledErrors) failures.push(`${p.red("✗")} 测试之外的错误（unhandled）\n${indent(formatError(error))}`);

    const list = [...rows.values()].sort((a, b) => (a.group < b.group ? -1 : a.group > b.group ? 1 : 0));
    const width = Math.max(...list.map((r) => r.group.length), 4);
    let text = "";
    if (failures.length > 0) text += `\n${failures.join("\n\n")}\n`;
    text += "\n" + list.map((r) => formatRow(r, width, p)).join("\n") + "\n";
    if (skips.length > 0) {
      const lines = formatSkips(skips, fileReasons, Boolean(this.vitest?.config.testNamePattern));
      text += `\n${p.yellow(`跳过 ${skips.length} 个测试`)}（CI=true 时只许跳过 .ci/skip-allow-list.txt 里列出的）：\n${lines.map((s) => `  - ${s}`).join("\n")}\n`;
    }
    const total = list.reduce(
      (t, r) => ({ files: t.files + r.files, passed: t.passed + r.passed, failed: t.failed + r.failed, skipped: t.skipped + r.skipped }),
      { files: 0, passed: 0, failed: 0, skipped: 0 },
    );
    if (this.plan !== undefined && (this.plan.copies.size > 0 || this.plan.error !== undefined)) text += `\n${p.dim(formatOnce(this.plan, (f) => this.relative(f)))}\n`;
    const failedCount = total.failed + unhandledErrors.length;
    const summary = `合计：${total.files} 个文件，${total.passed} 通过${failedCount > 0 ? `，${failedCount} 失败` : ""}，${total.skipped} 跳过，用时 ${formatSeconds(Date.now() - this.started)}`;
    text += `\n${failedCount > 0 ? p.red(`✗ ${summary}`) : p.green(`✓ ${summary}`)}\n`;
    // vitest 给的 diff 自带颜色：不是终端时去掉
    this.out.write(this.color ? text : text.replace(ANSI, ""));
  }

  /** describe 里的 beforeAll/afterAll 出错：测试本身被标成跳过，错误只在这一层 */
  private suiteErrors(suite: TestSuite, rel: string, failures: string[]): number {
    const errors = suite.errors();
    if (errors.length === 0) return 0;
    failures.push(`${this.p.red("✗")} ${rel} > ${suite.fullName}（钩子出错）\n${errors.map((e) => indent(formatError(e))).join("\n")}${this.printedLogs(suite.id)}`);
    return 1;
  }

  private formatFailure(test: TestCase, rel: string): string {
    const errors = test.result().errors ?? [];
    return `${this.p.red("✗")} ${rel} > ${test.fullName}\n${errors.map((e) => indent(formatError(e))).join("\n\n")}${this.printedLogs(test.id)}`;
  }
}
