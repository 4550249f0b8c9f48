// 内循环：在每个步骤目录里运行它自己的 npm test（vitest run），记下墙钟时间。
// 目标是两个空闲的核上每个步骤 ≤ 15 s——学习者改一行、跑一遍测试，不该等半分钟。
//
// 机器忙的时候墙钟时间会被拉长，所以同时给出两样帮助判断的数字：
//   - 开始时的 1 分钟平均负载（os.loadavg，Windows 上总是 0）；
//   - Linux 上再给出测试用掉的 CPU 时间（用户态 + 内核态，含全部子进程，读 /proc/self/stat）：
//     它几乎不受别的程序影响；CPU 时间 ÷ 核数 就是空闲机器上墙钟时间的下限。
import { spawn } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { listSteps, stepDir } from "../lib/steps.ts";
import { BenchSkip, rootOf, type BenchOptions, type Figure } from "./lib.ts";

export const title = "每个步骤的 npm test";

const TARGET_SECONDS = 15;

/** 已经结束并被等待过的子进程用掉的 CPU 秒数（cutime + cstime）；不是 Linux 时返回 undefined */
export function childrenCpuSeconds(): number | undefined {
  if (process.platform !== "linux") return undefined;
  try {
    const stat = fs.readFileSync("/proc/self/stat", "utf8");
    // 第 2 个字段（进程名）可能带空格，从右括号之后开始数：cutime、cstime 是第 16、17 个字段
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ticks = Number(fields[13]) + Number(fields[14]);
    return Number.isFinite(ticks) ? ticks / 100 : undefined; // Linux 的 USER_HZ 固定是 100
  } catch {
    return undefined;
  }
}

/** 仓库装好的 vitest 的命令行入口（步骤的 npm test 就是 vitest run） */
function vitestBin(): string {
  const pkgFile = createRequire(import.meta.url).resolve("vitest/package.json");
  return path.join(path.dirname(pkgFile), "vitest.mjs");
}

function runStepTests(dir: string, bin: string): Promise<{ code: number | null; output: string }> {
  return runNode([bin, "run"], dir, { CI: "1" });
}

/** 用当前的 node 运行一个脚本，收下 stdout 与 stderr（合在一起）和退出码；书站构建那一项也用它 */
export function runNode(args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, {
      cwd,
      env: { ...process.env, NO_COLOR: "1", ...env },
      stdio: ["ignore", "pipe", "pipe"],
      windowsHide: true,
    });
    let output = "";
    child.stdout.setEncoding("utf8").on("data", (c: string) => (output += c));
    child.stderr.setEncoding("utf8").on("data", (c: string) => (output += c));
    child.on("error", (e) => resolve({ code: null, output: `无法启动：${e.message}` }));
    child.on("close", (code) => resolve({ code, output }));
  });
}

export async function run(options: BenchOptions): Promise<Figure[]> {
  if (options.quick) throw new BenchSkip("（快速模式不跑：要把每个步骤的测试完整跑一遍，需要几分钟）");
  const root = rootOf(options);
  const steps = listSteps(root);
  if (steps.length === 0) throw new BenchSkip("（没有步骤）");
  const bin = vitestBin();
  const figures: Figure[] = [
    { name: "开始时的 1 分钟平均负载（空闲机器约为 0）", value: Number(os.loadavg()[0]?.toFixed(2) ?? 0), unit: "" },
  ];
  for (const step of steps) {
    const cpuBefore = childrenCpuSeconds();
    const started = performance.now();
    const { code, output } = await runStepTests(stepDir(root, step), bin);
    const seconds = (performance.now() - started) / 1000;
    if (code !== 0) throw new Error(`${step} 的 npm test 没有通过（退出码 ${code}）：\n${output.split("\n").slice(-30).join("\n")}`);
    const cpuAfter = childrenCpuSeconds();
    figures.push({ name: `${step}：墙钟时间`, value: seconds, unit: "s", target: `≤ ${TARGET_SECONDS} s`, ok: seconds <= TARGET_SECONDS });
    if (cpuBefore !== undefined && cpuAfter !== undefined) {
      figures.push({ name: `${step}：CPU 时间（用户态 + 内核态）`, value: cpuAfter - cpuBefore, unit: "s" });
    }
  }
  return figures;
}
