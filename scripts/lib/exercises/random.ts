/**
 * 随机用例：每次检查都现造几条新输入，让「背下检查器打印的输入」的查表写法过不了。
 *
 * 同一个种子造出同一批用例：没通过时报告里打印种子，npm run exercise -- N --seed <种子> 原样重来。
 * 生成器是 mulberry32（几行代码、足够均匀），不用 Math.random：后者不能指定种子。
 */

import crypto from "node:crypto";

/** 一个新种子（0 .. 2^32-1）。 */
export const freshSeed = (): number => crypto.randomInt(0, 2 ** 32 - 1);

/** 各类字符的取材：ASCII、常用汉字、BMP 之外的字符（emoji、数学字母、CJK 扩展 B）。 */
export const ALPHABETS = {
  ascii: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
  cjk: "你好世界模型工具扩展会话取消循环上下文流式测试中文汉字天气名字",
  // 每个都是单独一个码点、单独一个字形：按码点倒序与按字形倒序结果相同
  astral: ["😀", "🎉", "🚀", "🐍", "𝒜", "𝔹", "𠀀", "𠮷"],
} as const;

export type CharClass = keyof typeof ALPHABETS;

export class Random {
  private state: number;

  constructor(readonly seed: number) {
    this.state = seed >>> 0;
  }

  /** [0, 1) 之间的一个数。 */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** [min, max] 之间的整数。 */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(0, items.length - 1)] as T;
  }

  /** 打乱一份副本。 */
  shuffle<T>(items: readonly T[]): T[] {
    const copy = [...items];
    for (let i = copy.length - 1; i > 0; i--) {
      const j = this.int(0, i);
      [copy[i], copy[j]] = [copy[j] as T, copy[i] as T];
    }
    return copy;
  }

  /** 一个 length 个字符（码点）的字符串，字符取自给定的几类。 */
  text(length: number, classes: readonly CharClass[] = ["ascii", "cjk", "astral"]): string {
    let out = "";
    for (let i = 0; i < length; i++) out += this.pick([...ALPHABETS[this.pick(classes)]]);
    return out;
  }

  /** 一个随机的十六进制标识。 */
  id(length = 8): string {
    let out = "";
    for (let i = 0; i < length; i++) out += this.int(0, 15).toString(16);
    return out;
  }
}

/** 随机用例的名字都以它开头：报告里一眼看出哪些是这次现造的。 */
export const GENERATED = "随机用例";

export const generatedName = (index: number, total: number, what: string): string => `${GENERATED} ${index}/${total}（${what}）`;
