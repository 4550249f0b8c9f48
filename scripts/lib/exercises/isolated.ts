/**
 * 在子进程里检查（worker.ts）：学习者的代码拖不垮给出结论的这个进程。
 *
 * 每一种结局都变成一份报告：子进程交来的结论照原样用；它提前退出、被信号结束、事件循环空了还没结论、
 * 同步死循环（一段时间收不到它的心跳）、总时间超时，都变成一项 ✗，说出是哪一种、卡在哪一项。
 * 检查前后还核对检查器自己的文件：学习者的代码改了它们，这次的结论不算数，并点名改了哪个文件。
 */
import { ChildProcess, spawn } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

import { killTree, treeSpawnOptions } from "../kill-tree.ts";
import { toPosix } from "../paths.ts";
import { resolveTsxLoader } from "../tsx-cli.ts";
import { walkFiles } from "../walk-files.ts";
import { freshSeed } from "./random.ts";
import type { Check, Exercise, Report } from "./types.ts";
import { UNSETTLED, type CheckRequest, type WorkerMessage } from "./worker-protocol.ts";

const here = path.dirname(fileURLToPath(import.meta.url));
const WORKER = path.join(here, "worker.ts");
/** 检查器自己的文件：scripts/lib 下的全部，加上入口 scripts/exercise.ts。 */
const CHECKER_ROOT = path.resolve(here, "..", "..");

export interface Limits {
  /** 一次检查最多多久（子进程交出结论为止）。 */
  totalMs: number;
  /**
   * 检查进行中（检查进程报了正在跑哪一项之后）多久收不到心跳，就当作卡在同步代码里（死循环）。
   * 第一项开始之前（导入、转译学习者的文件）机器一忙就会久久不出声，那一段按三倍算。
   */
  stallMs: number;
}

/** 默认的时限：远大于任何一个正常的检查（毫秒级到几秒），只为一定给出结论。环境变量可以改（测试用）。 */
export function limitsFromEnv(env: NodeJS.ProcessEnv = process.env): Limits {
  const number = (value: string | undefined, fallback: number): number => (value !== undefined && /^\d{1,7}$/.test(value) ? Number(value) : fallback);
  return { totalMs: number(env.EXERCISE_LIMIT_MS, 90_000), stallMs: number(env.EXERCISE_STALL_MS, 15_000) };
}

export interface Worker {
  child: ChildProcess;
  /** 准备好了是 true；还没准备好就退出了（例如启动出错）是 false。 */
  ready: Promise<boolean>;
  /** spawn 当场抛出时它说了什么（起都没起来）。 */
  startError?: string;
}

/** 还活着的检查进程：检查器自己要退出时（Ctrl+C、出错）一个不留地带走，免得死循环的那个成了孤儿。 */
const live = new Set<ChildProcess>();
export function stopAllWorkers(): void {
  for (const child of live) {
    killTree(child, "SIGKILL");
    child.kill("SIGKILL");
  }
}

/** 启动一个检查进程；warm 给了步骤目录时，它先导入那个步骤的 src/（--watch 用）。 */
export function startWorker(warm?: string): Worker {
  const args = ["--import", resolveTsxLoader(), WORKER, ...(warm !== undefined ? ["--warm", warm] : [])];
  let child: ChildProcess;
  try {
    child = spawn(process.execPath, args, { stdio: ["ignore", "inherit", "inherit", "ipc"], ...treeSpawnOptions });
  } catch (error) {
    // 有的错误 spawn 当场抛出，而不是发 error 事件（Windows 上的 UNKNOWN、参数里的 NUL 字符）：同样算没能启动，检查器照常给出 ✗
    return { child: new ChildProcess(), ready: Promise.resolve(false), startError: error instanceof Error ? error.message : String(error) };
  }
  live.add(child);
  child.once("exit", () => live.delete(child));
  const ready = new Promise<boolean>((resolve) => {
    child.on("message", (message: WorkerMessage) => {
      if (message.type === "ready") resolve(true);
    });
    child.once("exit", () => resolve(false));
    child.once("error", () => resolve(false));
  });
  return { child, ready };
}

export const stopWorker = (worker: Worker): void => {
  if (worker.child.exitCode === null && worker.child.signalCode === null) killTree(worker.child, "SIGKILL");
};

/** 检查器文件的指纹：相对路径 → 哈希。 */
function fingerprint(): Map<string, string> {
  const files = walkFiles(path.join(CHECKER_ROOT, "lib")).map((file) => `lib/${file}`);
  files.push("exercise.ts");
  return new Map(files.map((file) => [file, hashOf(path.join(CHECKER_ROOT, file))]));
}
const hashOf = (file: string): string => {
  try {
    return crypto.createHash("sha256").update(fs.readFileSync(file)).digest("hex");
  } catch {
    return "（读不到）";
  }
};

/** 检查前后指纹的不同之处（给人看的 scripts/… 路径）。 */
function checkerEdits(before: Map<string, string>, after: Map<string, string>): string[] {
  const changed = [...after].filter(([file, hash]) => before.get(file) !== hash).map(([file]) => (before.has(file) ? file : `${file}（新文件）`));
  const removed = [...before.keys()].filter((file) => !after.has(file)).map((file) => `${file}（被删除）`);
  return [...changed, ...removed].map((file) => toPosix(path.join("scripts", file)));
}

type Outcome =
  | { kind: "report"; message: Extract<WorkerMessage, { type: "report" }> }
  | { kind: "stale" }
  | { kind: "exited"; code: number | null; signal: NodeJS.Signals | null; current: string | undefined }
  | { kind: "stalled"; current: string | undefined }
  | { kind: "timeout"; current: string | undefined };

/** 把题目交给一个准备好的检查进程，等它的结局。 */
function runIn(worker: Worker, request: CheckRequest, limits: Limits): Promise<Outcome> {
  const { child } = worker;
  return new Promise((resolve) => {
    let current: string | undefined;
    let last = Date.now();
    let report: Extract<WorkerMessage, { type: "report" }> | undefined;
    let stale = false;
    let settled: Outcome | undefined;
    const finish = (outcome: Outcome): void => {
      if (settled) return;
      settled = outcome;
      clearInterval(watchdog);
      clearTimeout(deadline);
      resolve(outcome);
    };
    child.on("message", (message: WorkerMessage) => {
      last = Date.now();
      if (message.type === "case") current = message.name;
      if (message.type === "report") report = message;
      if (message.type === "stale") stale = true;
    });
    child.once("exit", (code, signal) => {
      if (report) finish({ kind: "report", message: report });
      else if (stale) finish({ kind: "stale" });
      else finish({ kind: "exited", code, signal, current });
    });
    // 心跳停了：事件循环卡在同步代码里（学习者的 while (true)）。检查器自己的时限在那个进程里也跑不了，只能这里结束它
    const watchdog = setInterval(() => {
      if (Date.now() - last < (current === undefined ? 3 : 1) * limits.stallMs) return;
      stopWorker(worker);
      finish({ kind: "stalled", current });
    }, Math.min(250, limits.stallMs));
    const deadline = setTimeout(() => {
      stopWorker(worker);
      finish({ kind: "timeout", current });
    }, limits.totalMs);
    child.send(request);
  });
}

/** 没有结论的结局说成一句话。 */
function describe(outcome: Exclude<Outcome, { kind: "report" } | { kind: "stale" }>, limits: Limits): string {
  const seconds = (ms: number): string => `${Math.round(ms / 100) / 10} 秒`;
  if (outcome.kind === "stalled") {
    return `超时：检查进程 ${seconds(limits.stallMs)}没有响应，已被结束。代码卡在同步的死循环里（例如 while (true)）时就会这样：整个进程停住，连检查器自己的时限都等不到`;
  }
  if (outcome.kind === "timeout") return `超时：${seconds(limits.totalMs)}内没有给出结论，检查进程已被结束`;
  if (outcome.code === UNSETTLED) {
    return "在等一个永远不会兑现的 Promise：已经没有任何定时器或 I/O 能让它兑现，检查进程只好退出（例如 execute 返回了 new Promise(() => {})）";
  }
  if (outcome.signal !== null) return `检查进程在给出结论之前被信号 ${outcome.signal} 结束了`;
  return `检查进程在给出结论之前退出了（退出码 ${outcome.code}）：练习文件里的代码调用了 process.exit，或者结束了进程？检查要一直运行到给出结论`;
}

/**
 * 在检查进程里检查一个练习，返回报告；永不抛异常。
 * worker 给了就用它（预先启动好的），没给就现启动一个。检查完它一定已经结束。
 */
export async function checkIsolated(exercise: Exercise, dir: string, options: { seed?: number; limits?: Limits; worker?: Worker } = {}): Promise<Report | "stale"> {
  const limits = options.limits ?? limitsFromEnv();
  const worker = options.worker ?? startWorker();
  // 种子由这里定：检查进程没交出结论时，报告里的「--seed」也还是这次用的那个
  const seed = options.seed ?? freshSeed();
  try {
    if (!(await worker.ready)) {
      return { exercise, stepDir: dir, seed, notStarted: false, checks: [{ name: "启动检查进程", ok: false, saw: `检查进程没能启动${worker.startError !== undefined ? `（${worker.startError}）` : ""}：检查器的问题，请报告；先试试在仓库根目录运行 npm ci` }] };
    }
    const before = fingerprint();
    const outcome = await runIn(worker, { id: exercise.slug ?? exercise.id, dir, seed }, limits);
    if (outcome.kind === "stale") return "stale";
    const checks: Check[] =
      outcome.kind === "report"
        ? outcome.message.checks
        : [{ name: `文件 ${exercise.file} 存在`, ok: true }, { name: outcome.current ?? "按行为检查", ok: false, saw: describe(outcome, limits) }];
    const edits = checkerEdits(before, fingerprint());
    if (edits.length > 0) {
      checks.push({ name: "检查器自己的文件没有被改动", ok: false, saw: `你的代码在检查时改动了 ${edits.join("、")}：这次的结论不算数。恢复它们（例如 git checkout -- scripts），再检查一次` });
    }
    const reported = outcome.kind === "report" ? outcome.message : undefined;
    return { exercise, stepDir: dir, seed: reported?.seed ?? seed, notStarted: reported?.notStarted ?? false, checks };
  } finally {
    stopWorker(worker);
  }
}
