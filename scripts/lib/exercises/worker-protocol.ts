/**
 * 检查器与检查进程（worker.ts）之间说的话：题目、心跳、结论，以及「事件循环空了还没结论」的退出码。
 * 单独一个文件：worker.ts 一导入就开始当检查进程（等父进程发题目），检查器这边只该拿到这些定义。
 */
import type { Check } from "./types.ts";

/** 事件循环空了还没有结论（学习者的 Promise 永远不会兑现）时，检查进程的退出码。 */
export const UNSETTLED = 13;
/** 检查进程多久报一次「还活着」。 */
export const ALIVE_EVERY_MS = 200;

export interface CheckRequest {
  /** 练习编号，或者毕业练习的名字（pi）。 */
  id: number | string;
  dir: string;
  seed: number;
}

export type WorkerMessage =
  | { type: "ready" }
  | { type: "alive" }
  | { type: "case"; name: string | undefined }
  | { type: "report"; checks: Check[]; seed: number; notStarted: boolean }
  | { type: "stale" };
