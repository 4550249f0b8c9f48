// 练习 --watch 的重查延迟：保存一个文件 → 屏幕上打印出新的结论，要多久（§9：≤ 1 秒）。
//
// 怎么测：把 step07 复制到临时目录、放进练习 7 的参考答案，像学习者那样启动
// `npm run exercise -- 7 --watch --dir <副本>`。每一轮先等它说「保存 … 就会重新检查」（下一个检查进程已经准备好），
// 然后改写 extensions/reverse.ts（加一行注释），从写完文件开始计时，到标准输出里出现「练习 7 通过」为止。
// 这正是学习者感受到的时间：包含 fs.watch 的通知、60 毫秒的停顿、检查本身和打印。
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

import { resolveTsxCli } from "../lib/tsx-cli.ts";
import { BenchSkip, max, median, rootOf, stepByNumber, type BenchOptions, type Figure } from "./lib.ts";

export const title = "练习 --watch 重查";

/** 一个正在运行的 npm run exercise -- 7 --watch：读它的标准输出，等某句话出现。 */
export interface WatchSession {
  /** 等标准输出里（从上一次等到的地方往后）出现 text；limitMs 只防真卡住。 */
  waitFor(text: string, limitMs?: number): Promise<void>;
  stop(): Promise<void>;
}

/** 「保存 … 就会重新检查」：下一个检查进程已经准备好。 */
export const READY = "就会重新检查";

/** 在 stepCopy 上启动练习 id 的 --watch（种子固定，输出可比）；env 是另加的环境变量。 */
export function startWatch(root: string, id: number, stepCopy: string, env: NodeJS.ProcessEnv = {}): WatchSession {
  const child = spawn(process.execPath, [resolveTsxCli(), path.join(root, "scripts", "exercise.ts"), String(id), "--watch", "--dir", stepCopy, "--seed", "1"], {
    cwd: root,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...env },
  });
  let out = "";
  let from = 0;
  const listeners = new Set<() => void>();
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (chunk: string) => {
    out += chunk;
    for (const listener of [...listeners]) listener();
  });
  child.stderr.resume();
  const exited = new Promise((resolve) => child.once("exit", resolve));
  return {
    waitFor: (text, limitMs = 240_000) =>
      new Promise((resolve, reject) => {
        const check = (): void => {
          const at = out.indexOf(text, from);
          if (at < 0) return;
          listeners.delete(check);
          clearTimeout(timer);
          from = at + text.length;
          resolve();
        };
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(new Error(`${limitMs / 1000} 秒内没有看到「${text}」；输出的最后一段：${out.slice(-400)}`));
        }, limitMs);
        listeners.add(check);
        check();
      }),
    stop: async () => {
      child.kill();
      await exited;
    },
  };
}

/** 把步骤复制到临时目录（src、extensions、package.json），返回 [临时目录, 副本]。 */
export function copyStep(step: string): [string, string] {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), "bench-watch-"));
  const copy = path.join(base, path.basename(step));
  // filter：Windows 上的 Node 22/24 不带 filter 时，cpSync 遇到含中文的路径什么也不复制（nodejs/node#61878）
  for (const name of ["src", "extensions", "package.json"]) {
    fs.cpSync(path.join(step, name), path.join(copy, name), { recursive: true, filter: () => true });
  }
  return [base, copy];
}

export async function run(options: BenchOptions): Promise<Figure[]> {
  // 要启动十几个检查进程：快速模式（npm test 里的那次）不跑
  if (options.quick) throw new BenchSkip("（快速模式不跑：要启动十几个检查进程）");
  const root = rootOf(options);
  const [base, copy] = copyStep(stepByNumber(root, 7));
  const exercise = path.join(copy, "extensions", "reverse.ts");
  const solution = fs.readFileSync(path.join(root, "solutions", "step07-abort-extensions", "extensions", "reverse.ts"), "utf8");
  fs.writeFileSync(exercise, solution);
  const watch = startWatch(root, 7, copy);
  const samples: number[] = [];
  try {
    await watch.waitFor(READY); // 第一次检查（冷启动）和它之后准备好的下一个检查进程
    for (let i = 0; i < 8; i++) {
      fs.writeFileSync(exercise, `${solution}// 第 ${i + 1} 次保存\n`);
      const saved = performance.now();
      await watch.waitFor("练习 7 通过", 60_000);
      samples.push(performance.now() - saved);
      await watch.waitFor(READY);
    }
  } finally {
    await watch.stop();
    fs.rmSync(base, { recursive: true, force: true });
  }
  const worst = max(samples);
  return [
    { name: `保存 → 打印结论（中位数，${samples.length} 次）`, value: median(samples), unit: "ms" },
    { name: "保存 → 打印结论（最慢一次）", value: worst, unit: "ms", target: "≤ 1000 ms", ok: worst <= 1000 },
  ];
}
