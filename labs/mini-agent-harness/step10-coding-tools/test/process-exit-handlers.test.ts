/**
 * saveReplyBeforeExit 的规则，在本进程里逐条验证：信号与写不进去的标准输出各给什么退出码、
 * 先取消回复再关输入、第二个信号不再等、只收场一次。
 * process-exit.test.ts 在真实的 CLI 进程里验证整条路（半截回复存盘、锁文件删掉）；
 * 这里直接触发处理函数，坏了能指出是哪一条规则。
 */

import type { Interface } from "node:readline";
import { afterEach, describe, expect, it, vi } from "vitest";

import { saveReplyBeforeExit } from "../src/guards/process-exit.js";

type Watched = "SIGTERM" | "SIGHUP";
const SIGNALS: Watched[] = ["SIGTERM", "SIGHUP"];
const restore: Array<() => void> = [];

/**
 * 装上处理函数，记下它做了什么。别人（vitest）原有的监听器先摘下、用例结束再装回：
 * 这里 emit 的信号与错误只该到达被测的处理函数。
 */
function install(withCancel = true): string[] {
  const saved = SIGNALS.map((signal) => [signal, process.listeners(signal)] as const);
  const savedErrors = process.stdout.listeners("error") as Array<(error: Error) => void>;
  for (const signal of SIGNALS) process.removeAllListeners(signal);
  process.stdout.removeAllListeners("error");
  restore.push(() => {
    for (const [signal, listeners] of saved) {
      process.removeAllListeners(signal);
      for (const listener of listeners) process.on(signal, listener);
    }
    process.stdout.removeAllListeners("error");
    for (const listener of savedErrors) process.stdout.on("error", listener);
  });
  const events: string[] = [];
  const rl = { close: () => void events.push("close") } as unknown as Interface;
  if (withCancel) saveReplyBeforeExit(rl, () => void events.push("cancel"));
  else saveReplyBeforeExit(rl);
  return events;
}

function stubExit(): ReturnType<typeof vi.spyOn> {
  return vi.spyOn(process, "exit").mockImplementation((() => undefined) as never);
}

function writeError(code: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`write ${code}`), { code });
}

afterEach(() => {
  for (const undo of restore.splice(0)) undo();
  process.exitCode = undefined;
  vi.restoreAllMocks();
});

describe("收到信号", () => {
  it("SIGTERM：先取消回复再关输入，退出码 143，不立刻退出", () => {
    const exit = stubExit();
    const events = install();
    process.emit("SIGTERM");
    expect(events).toEqual(["cancel", "close"]);
    expect(process.exitCode).toBe(143);
    expect(exit).not.toHaveBeenCalled();
  });

  it("SIGHUP（终端窗口被关掉）：退出码 129", () => {
    const events = install();
    process.emit("SIGHUP");
    expect(events).toEqual(["cancel", "close"]);
    expect(process.exitCode).toBe(129);
  });

  it("第二个信号：回复卡住了，立刻以那个信号的退出码退出", () => {
    const exit = stubExit();
    const events = install();
    process.emit("SIGTERM");
    expect(exit).not.toHaveBeenCalled();
    process.emit("SIGHUP");
    expect(exit).toHaveBeenCalledTimes(1);
    expect(exit).toHaveBeenCalledWith(129);
    expect(events).toEqual(["cancel", "close"]); // 收场只做一次
  });

  it("没给 cancelReply 也照样关输入", () => {
    const events = install(false);
    process.emit("SIGTERM");
    expect(events).toEqual(["close"]);
    expect(process.exitCode).toBe(143);
  });
});

describe("标准输出写不进去", () => {
  it("EPIPE（读的一方不要了）：不是错误，安静地以 0 收场", () => {
    const complain = vi.spyOn(console, "error").mockImplementation(() => {});
    const events = install();
    process.stdout.emit("error", writeError("EPIPE"));
    expect(events).toEqual(["cancel", "close"]);
    expect(process.exitCode).toBe(0);
    expect(complain).not.toHaveBeenCalled();
  });

  it("别的写入错误（磁盘满了）：说一行原因，退出码 1", () => {
    const complain = vi.spyOn(console, "error").mockImplementation(() => {});
    const events = install();
    process.stdout.emit("error", writeError("ENOSPC"));
    expect(events).toEqual(["cancel", "close"]);
    expect(process.exitCode).toBe(1);
    expect(complain).toHaveBeenCalledTimes(1);
    const line = String(complain.mock.calls[0]![0]);
    expect(line).toMatch(/^标准输出写不进去：.*ENOSPC.*；已停止，说过的话都在会话文件里。$/);
    expect(line).not.toContain("\n");
  });

  it("已经在收场时再出错：不再说话，也不改退出码", () => {
    const complain = vi.spyOn(console, "error").mockImplementation(() => {});
    const events = install();
    process.emit("SIGTERM");
    process.stdout.emit("error", writeError("ENOSPC"));
    process.stdout.emit("error", writeError("EPIPE"));
    expect(process.exitCode).toBe(143);
    expect(complain).not.toHaveBeenCalled();
    expect(events).toEqual(["cancel", "close"]);
  });

  it("管道断了之后的第一个信号不改退出码；第二个才立刻退出", () => {
    const exit = stubExit();
    const events = install();
    process.stdout.emit("error", writeError("EPIPE"));
    process.emit("SIGTERM");
    expect(process.exitCode).toBe(0);
    expect(exit).not.toHaveBeenCalled();
    process.emit("SIGTERM");
    expect(exit).toHaveBeenCalledWith(143);
    expect(events).toEqual(["cancel", "close"]);
  });
});
