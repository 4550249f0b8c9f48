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
import { max, median, rootOf, stepByNumber, type BenchOptions, type Figure } from "./lib.ts";

export const title = "练习 --watch 重查";

/** 等标准输出里出现 pattern（从 from 这个位置往后找）；给一个宽松的上限，免得卡死。 */
function waitFor(read: () => string, from: number, pattern: string, limitMs: number, onData: (listener: () => void) => () => void): Promise<number> {
  return new Promise((resolve, reject) => {
    const check = (): void => {
      const at = read().indexOf(pattern, from);
      if (at >= 0) {
        off();
        clearTimeout(timer);
        resolve(at + pattern.length);
      }
    };
    const off = onData(check);
    const timer = setTimeout(() => {
      off();
      reject(new Error(`${limitMs / 1000} 秒内没有看到「${pattern}」；输出的最后一段：${read().slice(-300)}`));
    }, limitMs);
    check();
  });
}

export async function run(options: BenchOptions): Promise<Figure[]> {
  const root = rootOf(options);
  const step07 = stepByNumber(root, 7);
  const base = fs.mkdtempSync(path.join(os.tmpdir(), "bench-watch-"));
  const copy = path.join(base, path.basename(step07));
  for (const name of ["src", "extensions", "package.json"]) fs.cpSync(path.join(step07, name), path.join(copy, name), { recursive: true });
  const exercise = path.join(copy, "extensions", "reverse.ts");
  const solution = fs.readFileSync(path.join(root, "solutions", "step07-abort-extensions", "extensions", "reverse.ts"), "utf8");
  fs.writeFileSync(exercise, solution);

  const child = spawn(process.execPath, [resolveTsxCli(), path.join(root, "scripts", "exercise.ts"), "7", "--watch", "--dir", copy, "--seed", "1"], {
    cwd: root,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  const listeners = new Set<() => void>();
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (chunk: string) => {
    out += chunk;
    for (const listener of [...listeners]) listener();
  });
  child.stderr.resume();
  const onData = (listener: () => void) => {
    listeners.add(listener);
    return () => listeners.delete(listener);
  };
  const read = () => out;
  const READY = "就会重新检查";
  const VERDICT = "练习 7 通过";
  const samples: number[] = [];
  try {
    // 第一次检查（冷启动）和它之后准备好的下一个检查进程
    let at = await waitFor(read, 0, READY, 120_000, onData);
    const rounds = options.quick ? 3 : 8;
    for (let i = 0; i < rounds; i++) {
      fs.writeFileSync(exercise, `${solution}// 第 ${i + 1} 次保存\n`);
      const saved = performance.now();
      at = await waitFor(read, at, VERDICT, 60_000, onData);
      samples.push(performance.now() - saved);
      at = await waitFor(read, at, READY, 120_000, onData);
    }
  } finally {
    child.kill();
    await new Promise((resolve) => child.once("exit", resolve));
    fs.rmSync(base, { recursive: true, force: true });
  }
  const worst = max(samples);
  return [
    { name: `保存 → 打印结论（中位数，${samples.length} 次）`, value: median(samples), unit: "ms" },
    { name: "保存 → 打印结论（最慢一次）", value: worst, unit: "ms", target: "≤ 1000 ms", ok: worst <= 1000 },
  ];
}
