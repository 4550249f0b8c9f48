import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { killTree, treeSpawnOptions } from "./kill-tree.ts";
import { resolveTsxCli } from "./tsx-cli.ts";

export const DEFAULT_DEMO_TIMEOUT_MS = 60_000;

export interface DemoResult {
  stdout: string;
  stderr: string;
  /** 进程被信号结束或没能启动时为 null */
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  /** 子进程根本没启动起来时的原因 */
  spawnError?: string;
}

export interface RunDemoOptions {
  timeoutMs?: number;
  /** 同时把输出实时转发到这两个流（`npm run demo -- 7` 要看到真实节奏） */
  live?: { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream };
  tsxCli?: string;
}

/** 超时：默认 60 秒，环境变量 DEMO_TIMEOUT_MS 可覆盖 */
export function demoTimeoutMs(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.DEMO_TIMEOUT_MS;
  const n = raw === undefined ? NaN : Number(raw);
  return Number.isFinite(n) && n > 0 ? n : DEFAULT_DEMO_TIMEOUT_MS;
}

// 正在运行的 demo，用户按 Ctrl+C 时由 CLI 统一清理
const active = new Set<ChildProcess>();

export function killActiveDemos(): void {
  for (const child of active) killTree(child, "SIGKILL");
}

/** 在步骤目录里运行 `tsx src/demo.ts`，stdout 与 stderr 分开收集。 */
export function runDemo(stepDir: string, options: RunDemoOptions = {}): Promise<DemoResult> {
  const timeoutMs = options.timeoutMs ?? demoTimeoutMs();
  const demoFile = path.join(stepDir, "src", "demo.ts");
  if (!fs.existsSync(demoFile)) {
    return Promise.resolve({ stdout: "", stderr: "", exitCode: null, signal: null, timedOut: false, spawnError: "缺少 src/demo.ts" });
  }
  const tsxCli = options.tsxCli ?? resolveTsxCli();

  return new Promise((resolve) => {
    const child = spawn(process.execPath, [tsxCli, path.join("src", "demo.ts")], {
      cwd: stepDir,
      // 关掉颜色：golden 里不能有转义序列
      env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0" },
      stdio: ["ignore", "pipe", "pipe"],
      ...treeSpawnOptions,
    });
    active.add(child);

    // 先收 Buffer，最后一次性解码，避免多字节汉字被切在两个 chunk 之间
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout?.on("data", (chunk: Buffer) => {
      out.push(chunk);
      options.live?.stdout.write(chunk);
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      err.push(chunk);
      options.live?.stderr.write(chunk);
    });

    let timedOut = false;
    let spawnError: string | undefined;
    let settled = false;
    const timers: NodeJS.Timeout[] = [];

    const finish = (exitCode: number | null, signal: NodeJS.Signals | null): void => {
      if (settled) return;
      settled = true;
      for (const t of timers) clearTimeout(t);
      active.delete(child);
      const result: DemoResult = {
        stdout: Buffer.concat(out).toString("utf8"),
        stderr: Buffer.concat(err).toString("utf8"),
        exitCode,
        signal,
        timedOut,
      };
      if (spawnError !== undefined) result.spawnError = spawnError;
      resolve(result);
    };

    timers.push(
      setTimeout(() => {
        timedOut = true;
        killTree(child, "SIGTERM");
        // 给 1 秒体面退出，之后强杀；再过 2 秒管道还不关就不等了
        timers.push(setTimeout(() => killTree(child, "SIGKILL"), 1_000));
        timers.push(
          setTimeout(() => {
            child.stdout?.destroy();
            child.stderr?.destroy();
            finish(child.exitCode, child.signalCode);
          }, 3_000),
        );
      }, timeoutMs),
    );

    child.on("error", (e) => {
      spawnError = `无法启动 demo：${e.message}`;
      finish(null, null);
    });
    // 用 close 而不是 exit：要等管道里的输出全部读完
    child.on("close", (code, signal) => finish(code, signal));
  });
}
