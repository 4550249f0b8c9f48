/**
 * 进程被叫停时不丢话（issue 31 第 2、3 条）：SIGTERM、SIGHUP（终端窗口被关掉）与写不进去的标准输出
 * （管道另一头关了、磁盘满了）。和 Ctrl+C 一样：半截回复照常存进会话，锁文件删掉，没有堆栈。
 * 信号的退出码按惯例是 128 + 信号编号；读的一方不要了（EPIPE）不是错误，安静地以 0 结束。
 */

import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it, type TestContext } from "vitest";

import { mainArgs, makeSandbox, removeSandbox, stepRoot, withoutProvider } from "./helpers/cli.js";

/** 这一步能不能取消一轮回复（step07 起）：能就存半截（aborted），不能就等它说完（stop）。 */
const CANCELS = !path.basename(stepRoot).startsWith("step06");

function sandbox(test: TestContext): string {
  const dir = makeSandbox();
  test.onTestFinished(() => removeSandbox(dir));
  return dir;
}

/** 不带任何模型服务的配置：从 step08 起没有配置就用本地脚本服务器。 */
function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0" };
  for (const name of Object.keys(env)) {
    if (name.startsWith("HARNESS_") || name.startsWith("SCRIPTED_PROVIDER_") || name === "OPENAI_API_KEY" || name === "ANTHROPIC_API_KEY") delete env[name];
  }
  return env;
}

interface Running {
  child: ChildProcess;
  output: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
  /** 等输出里出现 text（第 times 次）：等的是输出事件，不是毫秒数；进程没打印就退出了，带着它的输出报错。 */
  waitFor: (text: string, times?: number) => Promise<void>;
}

function start(test: TestContext, dir: string, stdout: "pipe" | number = "pipe"): Running {
  const child = spawn(process.execPath, mainArgs(dir, []), { cwd: dir, env: cleanEnv(), stdio: ["pipe", stdout, "pipe"] });
  test.onTestFinished(() => {
    child.kill("SIGKILL");
  });
  let out = "";
  let err = "";
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (err += chunk));
  child.stdin!.on("error", () => {});
  // close 而不是 exit：exit 时标准错误可能还没读完，断言就会看到半截（机器很忙时真的发生过）
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  // 没有时限：真卡住由测试的时限兜底，机器再忙也只是晚一点到
  const waitFor = (text: string, times = 1): Promise<void> =>
    new Promise((resolve, reject) => {
      const check = (): void => {
        if (out.split(text).length <= times) return;
        stop();
        resolve();
      };
      const closed = (code: number | null): void => {
        stop();
        reject(new Error(`进程没打印「${text}」就退出了（退出码 ${code}）：\n${out}${err}`));
      };
      const stop = (): void => {
        child.stdout?.off("data", check);
        child.off("close", closed);
      };
      child.stdout?.on("data", check);
      child.on("close", closed);
      check();
    });
  return { child, output: () => out, stderr: () => err, exited, waitFor };
}

function sessionLines(dir: string): Array<{ message: { role: string; stopReason?: string; content: unknown } }> {
  const folder = path.join(dir, ".sessions");
  const [file] = fs.readdirSync(folder).filter((name) => name.endsWith(".jsonl"));
  return fs.readFileSync(path.join(folder, file!), "utf8").trimEnd().split("\n").map((line) => JSON.parse(line));
}

const locks = (dir: string): string[] => fs.readdirSync(path.join(dir, ".sessions")).filter((name) => name.endsWith(".lock"));

/** 最后一条是助手的回复：能取消的步骤存下的是半截（aborted），文字是完整回复的开头。 */
function expectReplySaved(dir: string): void {
  const lines = sessionLines(dir);
  expect(lines.map((line) => line.message.role)).toEqual(["user", "assistant"]);
  const reply = lines[1]!.message;
  expect(reply.stopReason).toBe(CANCELS ? "aborted" : "stop");
  const text = (reply.content as Array<{ type: string; text: string }>).map((part) => part.text).join("");
  expect(text.startsWith("这是")).toBe(true);
}

const noSignals = process.platform === "win32";
if (noSignals) console.warn("[跳过] SIGTERM/SIGHUP 测试：Windows 不能向别的进程发送这两个信号（child.kill 会直接结束它）");

describe.skipIf(noSignals || withoutProvider).concurrent("回复途中收到 SIGTERM / SIGHUP", () => {
  it.for([
    ["SIGTERM", 143],
    ["SIGHUP", 129],
  ] as const)("%s：存下已说的话，删掉锁，退出码 %i", async ([signal, code], test) => {
    const dir = sandbox(test);
    const run = start(test, dir);
    await run.waitFor("你> ");
    run.child.stdin!.write("说个长的\n");
    await run.waitFor("助手> 这是");
    run.child.kill(signal);
    expect(await run.exited).toBe(code);
    expectReplySaved(dir);
    expect(locks(dir)).toEqual([]);
    expect(run.stderr()).not.toMatch(/\n\s+at /);
  });

  it("空闲时收到 SIGTERM：删掉锁，退出码 143", async (test) => {
    const dir = sandbox(test);
    const run = start(test, dir);
    await run.waitFor("你> ");
    run.child.stdin!.write("我叫小明\n");
    await run.waitFor("[第 1 轮结束]");
    await run.waitFor("你> ", 2);
    run.child.kill("SIGTERM");
    expect(await run.exited).toBe(143);
    expect(sessionLines(dir)).toHaveLength(2);
    expect(locks(dir)).toEqual([]);
  });
});

describe.skipIf(withoutProvider).concurrent("标准输出写不进去", () => {
  it("管道另一头关了（| head）：安静地结束，退出码 0，已说的话存进会话", async (test) => {
    const dir = sandbox(test);
    const run = start(test, dir);
    await run.waitFor("你> ");
    run.child.stdin!.write("说个长的\n");
    await run.waitFor("助手> 这是");
    run.child.stdout!.destroy();
    expect(await run.exited).toBe(0);
    expect(run.stderr()).toBe("");
    expectReplySaved(dir);
    expect(locks(dir)).toEqual([]);
  });

  it.skipIf(!fs.existsSync("/dev/full"))("写到 /dev/full：一行中文说明原因，退出码 1，没有堆栈", async (test) => {
    const dir = sandbox(test);
    const full = fs.openSync("/dev/full", "w");
    test.onTestFinished(() => fs.closeSync(full));
    const run = start(test, dir, full);
    run.child.stdin!.end("我叫小明\n");
    expect(await run.exited).toBe(1);
    expect(run.stderr().trimEnd().split("\n")).toHaveLength(1);
    expect(run.stderr()).toContain("ENOSPC");
    expect(run.stderr()).not.toMatch(/\n\s+at /);
    if (fs.existsSync(path.join(dir, ".sessions"))) expect(locks(dir)).toEqual([]);
  });
});
