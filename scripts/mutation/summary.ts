// 读 Stryker 的 JSON 报告（mutation-testing-report-schema），算每个文件的变异分数，
// 并把「存活的变异体」与 equivalents.json 里登记的等价变异体对上号。
// 对号按「文件 + 变异算子 + 被改的原文 + 改成的文本」，行号只用来在几个同样的候选里挑最近的：
// 别人在文件前面加几行，登记不会失效；代码真的变了，旧登记对不上，新的存活者也藏不住。

/** 报告里我们用到的那一小部分（完整格式见 mutation-testing-report-schema）。 */
export interface ReportPosition {
  line: number;
  column: number;
}
export interface ReportMutant {
  id: string;
  mutatorName: string;
  replacement?: string;
  status: string;
  location: { start: ReportPosition; end: ReportPosition };
}
export interface Report {
  files: Record<string, { source: string; mutants: ReportMutant[] }>;
}

/** equivalents.json 的一条：file 相对于第 09 步目录，line 是登记时的行号。 */
export interface Equivalent {
  file: string;
  line: number;
  mutator: string;
  original: string;
  replacement: string;
  why: string;
}

export interface Survivor {
  file: string;
  line: number;
  mutator: string;
  original: string;
  replacement: string;
  status: string;
}

export interface FileScore {
  file: string;
  killed: number; // 含超时（Stryker 也把超时算作「测出来了」）
  survived: number; // 含没有测试执行到的（NoCoverage）
  equivalent: number; // survived 里已登记为等价的那几个
  errors: number; // 编译错误、运行时错误：不计入分母
  ignored: number; // 没有测（--ignore-static 跳过的静态变异体）：不计入分母
}

export interface Summary {
  files: FileScore[];
  /** 没登记的存活者：要么补测试杀掉，要么证明等价后登记。 */
  unlisted: Survivor[];
  /** 登记了却没对上的条目（只算本次变异过的文件）：代码或测试变了，登记该更新或删掉。 */
  stale: Equivalent[];
  /**
   * 对上了登记、这次却「超时」的变异体：等价的改动不会让测试失败，只会让它变慢（去掉一条捷径）
   * 或者碰上机器很忙。它们不算测出来，照等价变异体处理，只是单独数一下。
   */
  timedOut: number;
}

const DETECTED = new Set(["Killed", "Timeout"]);
const UNDETECTED = new Set(["Survived", "NoCoverage"]);

/** 多个空白压成一个：登记里的原文不必逐字符照抄缩进与换行。 */
export function normalizeText(s: string): string {
  return s.replace(/\s+/g, " ").trim();
}

/** 报告里的位置是 1 起的行、1 起的列；取出这一段原文。 */
export function sliceSource(source: string, start: ReportPosition, end: ReportPosition): string {
  const lines = source.split("\n");
  const offset = (p: ReportPosition) => {
    let n = 0;
    for (let i = 0; i < p.line - 1; i++) n += (lines[i]?.length ?? 0) + 1;
    return n + p.column - 1;
  };
  return source.slice(offset(start), offset(end));
}

const keyOf = (x: { file: string; mutator: string; original: string; replacement: string }) =>
  [x.file, x.mutator, normalizeText(x.original), normalizeText(x.replacement)].join("\u0000");

/**
 * fileKey 把报告里的文件名变成登记用的名字（相对于第 09 步目录、正斜杠）。
 */
export function summarize(report: Report, equivalents: Equivalent[], fileKey: (reportName: string) => string): Summary {
  const files: FileScore[] = [];
  const survivors: Survivor[] = [];
  // 超时的变异体也拿去和登记对号（见 Summary.timedOut）；对不上的照旧算测出来
  const timeouts: Survivor[] = [];
  for (const [name, entry] of Object.entries(report.files)) {
    const file = fileKey(name);
    const score: FileScore = { file, killed: 0, survived: 0, equivalent: 0, errors: 0, ignored: 0 };
    for (const m of entry.mutants) {
      const found = (): Survivor => ({
        file,
        line: m.location.start.line,
        mutator: m.mutatorName,
        original: sliceSource(entry.source, m.location.start, m.location.end),
        replacement: m.replacement ?? "",
        status: m.status,
      });
      if (DETECTED.has(m.status)) {
        score.killed++;
        if (m.status === "Timeout") timeouts.push(found());
      } else if (UNDETECTED.has(m.status)) {
        score.survived++;
        survivors.push(found());
      } else if (m.status === "Ignored") score.ignored++;
      else score.errors++;
    }
    files.push(score);
  }
  files.sort((a, b) => a.file.localeCompare(b.file));

  // 同一个键可能有几条登记、几个存活者：所有（存活者, 登记）对按行号距离从近到远配对，
  // 每个存活者、每条登记最多用一次——同样的原文出现在两行时，各自对上离自己最近的那条
  const pool = new Map<string, Equivalent[]>();
  for (const e of equivalents) {
    const k = keyOf(e);
    pool.set(k, [...(pool.get(k) ?? []), e]);
  }
  // 先配存活者，再配超时的：同一条登记既能抵一个存活者也能抵一个超时者时，抵存活者
  const candidates = [...survivors, ...timeouts];
  const pairs: Array<{ survivor: number; equivalent: Equivalent; distance: number; late: boolean }> = [];
  candidates.forEach((s, index) => {
    const late = index >= survivors.length;
    for (const e of pool.get(keyOf(s)) ?? []) pairs.push({ survivor: index, equivalent: e, distance: Math.abs(e.line - s.line), late });
  });
  pairs.sort((a, b) => Number(a.late) - Number(b.late) || a.distance - b.distance);
  const matched = new Set<number>();
  const used = new Set<Equivalent>();
  const byFile = new Map(files.map((f) => [f.file, f]));
  let timedOut = 0;
  for (const { survivor, equivalent, late } of pairs) {
    if (matched.has(survivor) || used.has(equivalent)) continue;
    matched.add(survivor);
    used.add(equivalent);
    const score = byFile.get(candidates[survivor]!.file)!;
    score.equivalent++;
    if (late) {
      // 超时的等价变异体：从「测出来」挪到「等价」
      score.killed--;
      score.survived++;
      timedOut++;
    }
  }
  const unlisted = survivors.filter((_, index) => !matched.has(index));
  const mutated = new Set(files.map((f) => f.file));
  const stale = equivalents.filter((e) => !used.has(e) && mutated.has(e.file));
  unlisted.sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line);
  return { files, unlisted, stale, timedOut };
}

/** 变异分数：测出来的 ÷（测出来的 + 存活的），百分比。excludeEquivalent 时登记的等价变异体不进分母。 */
export function scoreOf(s: Pick<FileScore, "killed" | "survived" | "equivalent">, excludeEquivalent: boolean): number {
  const total = s.killed + s.survived - (excludeEquivalent ? s.equivalent : 0);
  return total === 0 ? 100 : (100 * s.killed) / total;
}

/** 几个文件加在一起（整个 retry/ 目录、全部文件）。 */
export function sumScores(file: string, parts: FileScore[]): FileScore {
  const total: FileScore = { file, killed: 0, survived: 0, equivalent: 0, errors: 0, ignored: 0 };
  for (const p of parts) {
    total.killed += p.killed;
    total.survived += p.survived;
    total.equivalent += p.equivalent;
    total.errors += p.errors;
    total.ignored += p.ignored;
  }
  return total;
}
