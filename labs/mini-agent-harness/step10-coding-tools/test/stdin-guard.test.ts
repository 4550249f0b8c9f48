/**
 * endInputIfStdinDestroyed 的三条规则：输入已经被毁掉时立刻收场，之后才被关掉时收到 'close' 再收场，
 * 正常读完（readableEnded）时一声不吭、交给 readline 自己收场。
 * 用一条真的 PassThrough 当输入，用一个只记次数的 rl 代替 readline。
 */

import type readline from "node:readline";
import { PassThrough } from "node:stream";
import { once } from "node:events";
import { afterEach, describe, expect, it, vi } from "vitest";

import { endInputIfStdinDestroyed } from "../src/guards/extensions.js";

const WARNING = /^\[警告\] 标准输入被关掉了（是不是哪个扩展调用了 process\.stdin\.destroy\(\)？）：像 Ctrl\+D 一样结束输入。$/;

function fakeRl(): { rl: readline.Interface; closes: () => number } {
  let count = 0;
  const rl = { close: () => void count++ } as unknown as readline.Interface;
  return { rl, closes: () => count };
}

function captureErrors(): string[] {
  const lines: string[] = [];
  vi.spyOn(console, "error").mockImplementation((...args: unknown[]) => void lines.push(args.join(" ")));
  return lines;
}

afterEach(() => vi.restoreAllMocks());

describe("endInputIfStdinDestroyed", () => {
  it("输入在装上之前就被毁掉了：立刻警告一行并关掉 rl", () => {
    const lines = captureErrors();
    const input = new PassThrough();
    input.destroy();
    const { rl, closes } = fakeRl();
    endInputIfStdinDestroyed(rl, input);
    expect(closes()).toBe(1);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(WARNING);
  });

  it("装上之后才被毁掉：等到 'close' 时警告一行并关掉 rl，只收场一次", async () => {
    const lines = captureErrors();
    const input = new PassThrough();
    const { rl, closes } = fakeRl();
    endInputIfStdinDestroyed(rl, input);
    expect(closes()).toBe(0); // 还没关：不能抢在 'close' 之前收场
    expect(lines).toEqual([]);
    const closed = once(input, "close");
    input.destroy();
    await closed;
    expect(closes()).toBe(1);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(WARNING);
    input.emit("close"); // 再来一次 'close' 也不再收场：监听器只装一次
    expect(closes()).toBe(1);
  });

  it("正常读完（Ctrl+D、管道读完）：不警告、不关 rl", async () => {
    const lines = captureErrors();
    const input = new PassThrough();
    const { rl, closes } = fakeRl();
    endInputIfStdinDestroyed(rl, input);
    input.resume();
    const closed = once(input, "close");
    input.end("最后一行\n");
    await closed;
    expect(input.readableEnded).toBe(true);
    expect(closes()).toBe(0);
    expect(lines).toEqual([]);
  });
});
