/**
 * 读的一方不要了（`npm run demo | head -1`）：仓库脚本安静地结束，不打印 EPIPE 的堆栈，
 * 还在跑的 demo 进程一起结束（issue 31 第 3 条）。写到满了的磁盘：一行原因，退出码 1。
 */

import { spawn } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it, type TestContext } from "vitest";
import { repoRoot } from "../lib/paths.ts";

const tsx = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;

function runDemo(test: TestContext, stdout: "pipe" | number, script: string[]) {
  const child = spawn(process.execPath, ["--import", tsx, path.join("scripts", script[0]!), ...script.slice(1)], {
    cwd: repoRoot,
    env: { ...process.env, NO_COLOR: "1" },
    stdio: ["ignore", stdout, "pipe"],
  });
  test.onTestFinished(() => {
    child.kill("SIGKILL");
  });
  let stderr = "";
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { child, exited, stderr: () => stderr };
}

describe.concurrent("标准输出被关掉，或写不进去", () => {
  // 写不进去时的处理在 golden.ts 开头一次装好，全部 demo 与单个 demo 走的是同一个：这里用只跑 step01 一个 demo 的
  // npm run demo -- 1（它边跑边输出，关掉管道时那个 demo 一定还在跑），不必为读一行而把前两三个 demo 跑完
  it("npm run demo -- 1 | head -1：读到第一段就关掉管道，安静地以 0 结束", async (test) => {
    const run = runDemo(test, "pipe", ["golden.ts", "demo", "1"]);
    await new Promise((resolve) => run.child.stdout!.once("data", resolve));
    run.child.stdout!.destroy();
    expect(await run.exited).toBe(0);
    expect(run.stderr()).toBe("");
  });

  if (!fs.existsSync("/dev/full")) console.warn("[跳过] 写到 /dev/full 那一项：这个系统上没有这个设备，写到满了的磁盘只在 Linux 上测");
  // 写不进去的处理是 demo 与 diff 共用的那一个（scripts/lib/closed-output.ts）：用只起一个进程的 npm run diff 来测，
  // 不必为第一个字写不进去而把九个 demo 都启动一遍
  it.skipIf(!fs.existsSync("/dev/full"))("npm run diff 写到 /dev/full：一行中文原因，退出码 1，没有堆栈", async (test) => {
    const full = fs.openSync("/dev/full", "w");
    test.onTestFinished(() => fs.closeSync(full));
    const run = runDemo(test, full, ["step-diff.ts", "08", "09"]);
    expect(await run.exited).toBe(1);
    expect(run.stderr().trimEnd().split("\n")).toHaveLength(1);
    expect(run.stderr()).toContain("ENOSPC");
  });
});

describe.concurrent("npm run diff 的输出很长：| head 之后同样安静", () => {
  it.for([
    ["npm run diff -- 08 09", ["step-diff.ts", "08", "09"]],
  ] as const)("%s", async ([, script], test) => {
    const run = runDemo(test, "pipe", [...script]);
    await new Promise((resolve) => run.child.stdout!.once("data", resolve));
    run.child.stdout!.destroy();
    expect(await run.exited).toBe(0);
    expect(run.stderr()).toBe("");
  });
});
