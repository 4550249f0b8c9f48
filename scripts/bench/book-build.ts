// npm run book:build 的墙钟时间：目标是两个核上 ≤ 60 s（issue 23）。
// 测两次：「冷」——先清掉 book/.cache 与 VitePress 的缓存，像刚克隆下来那样（要开 Chromium 渲染图、重跑 step06–09 的 demo）；
// 「热」——紧接着再构建一次，内容没变的图、代码高亮、会话页都取缓存。另给出子进程的 CPU 时间，机器忙时用它判断。
// book/ 的依赖没装（npm ci --prefix book）或找不到 Chromium 时跳过这一项，并说明原因。
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { bookEnv } from "../lib/book-env.ts";
import { resolveTsxCli } from "../lib/tsx-cli.ts";
import { BenchSkip, rootOf, type BenchOptions, type Figure } from "./lib.ts";
import { childrenCpuSeconds, runNode } from "./step-tests.ts";

export const title = "书站构建（npm run book:build）";

const TARGET_SECONDS = 60;

function build(bookDir: string): Promise<{ code: number | null; output: string }> {
  // 与 npm run book:build 同样的环境（scripts/lib/book-env.ts）
  return runNode([resolveTsxCli(), path.join(bookDir, "scripts", "build.ts")], bookDir, { NODE_OPTIONS: bookEnv().NODE_OPTIONS });
}

export async function run(options: BenchOptions): Promise<Figure[]> {
  if (options.quick) throw new BenchSkip("（快速模式不跑：要完整构建两次书站）");
  const bookDir = path.join(rootOf(options), "book");
  if (!fs.existsSync(path.join(bookDir, "node_modules", "vitepress"))) throw new BenchSkip("（book/ 的依赖没装：npm ci --prefix book，或先运行一次 npm run book:build）");
  const chromium = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
  if (!fs.existsSync(chromium)) throw new BenchSkip(`（找不到 Chromium：${chromium}）`);
  const figures: Figure[] = [{ name: "开始时的 1 分钟平均负载（空闲机器约为 0）", value: Number(os.loadavg()[0]?.toFixed(2) ?? 0), unit: "" }];
  for (const kind of ["冷（清掉缓存，像刚克隆）", "热（缓存都在）"]) {
    if (kind.startsWith("冷")) {
      fs.rmSync(path.join(bookDir, ".cache"), { recursive: true, force: true });
      fs.rmSync(path.join(bookDir, ".vitepress", "cache"), { recursive: true, force: true });
      fs.rmSync(path.join(bookDir, ".pi-src"), { recursive: true, force: true });
    }
    const cpuBefore = childrenCpuSeconds();
    const started = performance.now();
    const { code, output } = await build(bookDir);
    const seconds = (performance.now() - started) / 1000;
    if (code !== 0) throw new Error(`书站构建失败（退出码 ${code}）：\n${output.split("\n").slice(-30).join("\n")}`);
    const cpuAfter = childrenCpuSeconds();
    figures.push({ name: `${kind}：墙钟时间`, value: seconds, unit: "s", target: `≤ ${TARGET_SECONDS} s`, ok: seconds <= TARGET_SECONDS });
    if (cpuBefore !== undefined && cpuAfter !== undefined) figures.push({ name: `${kind}：CPU 时间（用户态 + 内核态）`, value: cpuAfter - cpuBefore, unit: "s" });
  }
  return figures;
}
