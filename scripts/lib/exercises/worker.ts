/**
 * 检查进程：学习者的代码在这里导入、运行。它调用 process.exit、写了死循环、留下永远不兑现的 Promise，
 * 垮掉的只是这个进程；父进程（isolated.ts）照样给出结论。
 *
 * 和父进程的约定（IPC 消息）：
 *   子 → 父 { type: "ready" }             检查器（和 --warm 给的步骤 src/）已导入，等题目
 *   父 → 子 { id, dir, seed }              开始检查
 *   子 → 父 { type: "alive" }             定时发出：事件循环还在转（同步死循环时就停了）
 *   子 → 父 { type: "case", name }        正在跑哪一项（卡死时报告卡在哪一项）
 *   子 → 父 { type: "report", … }         结论
 *   子 → 父 { type: "stale" }             预先导入之后 src/ 又变了，手里的模块旧了：父进程换一个新进程重查
 * 事件循环空了还没有结论（学习者的 Promise 永远不会兑现）：以退出码 UNSETTLED 结束。
 * 这个文件没有顶层 await：有的话 Node 会在同样情形下打印一段英文警告。
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { isDeepStrictEqual } from "node:util";

import { walkFiles } from "../walk-files.ts";
import { followCases } from "./helpers.ts";
import { findExercise } from "./registry.ts";
import { runExercise } from "./run.ts";
import { manifestOf } from "./src-unchanged.ts";
import { ALIVE_EVERY_MS, UNSETTLED, type CheckRequest, type WorkerMessage } from "./worker-protocol.ts";

/** 发给父进程；返回的 Promise 在消息写出去之后兑现（退出之前要等它，否则结论可能丢在管道里）。 */
const send = (message: WorkerMessage): Promise<void> =>
  new Promise((resolve) => {
    try {
      if (!process.send?.(message, undefined, {}, () => resolve())) resolve();
    } catch {
      resolve(); // 父进程已经不在了：没人等结论
    }
  });

/**
 * 预先导入步骤 src/ 里的模块（只是库：入口 main.ts、demo.ts、*-cli.ts 一导入就会运行，不导入）。
 * 导入出错不要紧：真正检查时会再导入一次，把错误报告给学习者。
 */
async function warmUp(dir: string): Promise<void> {
  const src = path.join(dir, "src");
  const libraries = walkFiles(src).filter((file) => file.endsWith(".ts") && !/(^|\/)(main|demo|[\w-]+-cli)\.ts$/.test(file));
  for (const file of libraries) await import(pathToFileURL(path.join(src, file)).href).catch(() => undefined);
  // 学习者刚保存的文件是新内容，tsx 要现编译它；进程里第一次编译要先启动 esbuild（机器忙时一秒多）。
  // 先编译一个内容独一无二的小文件，把这笔开销花在保存之前。
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "exercise-watch-"));
  try {
    const file = path.join(scratch, "warm.ts");
    fs.writeFileSync(file, `export const warm: string = ${JSON.stringify(`${process.pid}-${Date.now()}`)};\n`);
    await import(pathToFileURL(file).href).catch(() => undefined);
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  // 父进程没了（还在等题目时）就退出
  const orphaned = (): never => process.exit(0);
  process.once("disconnect", orphaned);
  const warm = process.argv.indexOf("--warm");
  const warmDir = warm >= 0 ? process.argv[warm + 1] : undefined;
  const before = warmDir === undefined ? undefined : manifestOf(warmDir);
  if (warmDir !== undefined) await warmUp(warmDir);
  const request = await new Promise<CheckRequest>((resolve) => {
    process.once("message", (message) => resolve(message as CheckRequest));
    send({ type: "ready" });
  });
  // 不再听父进程：IPC 通道不再占着事件循环，学习者的 Promise 永远不兑现时事件循环才会空下来（见 beforeExit）
  process.off("disconnect", orphaned);
  if (warmDir !== undefined && !isDeepStrictEqual(manifestOf(warmDir), before)) {
    await send({ type: "stale" });
    process.exit(0);
  }
  const exercise = findExercise(request.id);
  if (exercise === undefined) throw new Error(`没有练习 ${request.id}`);
  let reported = false;
  process.once("beforeExit", () => {
    if (!reported) process.exitCode = UNSETTLED;
  });
  setInterval(() => void send({ type: "alive" }), ALIVE_EVERY_MS).unref();
  followCases((name) => void send({ type: "case", name }));
  const report = await runExercise(exercise, request.dir, { seed: request.seed });
  reported = true;
  await send({ type: "report", checks: report.checks, seed: report.seed, notStarted: report.notStarted });
  // 学习者的代码可能留下没关的定时器或连接；结论已经交出去，不必等它们
  process.exit(0);
}

main().catch((error: unknown) => {
  console.error(`检查进程出错（检查器的问题，请报告）：${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
