/**
 * bash 的输出只留尾巴：最后 2000 行或 50KB，先到哪个算哪个；截过就说截了什么（不带路径）。
 * 直接往 OutputTail 里倒字节，不起进程（起进程的 10 MB 用例在 bash.test.ts）。
 */
import { describe, expect, it } from "vitest";

import { MAX_BYTES, MAX_LINES, OutputTail } from "../../src/tools/output-tail.js";

function tail(...chunks: Array<string | Buffer>): string {
  const output = new OutputTail();
  for (const chunk of chunks) output.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
  return output.text();
}

const numbered = (from: number, to: number): string => Array.from({ length: to - from + 1 }, (_, i) => `line ${from + i}`).join("\n");

describe("OutputTail", () => {
  it("常量照 Pi：2000 行、50KB", () => {
    expect([MAX_LINES, MAX_BYTES]).toEqual([2000, 51200]);
  });

  it("没超：原样（只去掉末尾的那个换行）", () => {
    expect(tail("a\nb\n")).toBe("a\nb");
    expect(tail("a\n", "b")).toBe("a\nb");
    expect(tail()).toBe("");
  });

  it("行数先到：留最后 2000 行，说出第几行到第几行、共几行", () => {
    expect(tail(`${numbered(1, 3000)}\n`)).toBe(`${numbered(1001, 3000)}\n\n[输出太长，只留最后 2000 行：第 1001–3000 行，共 3000 行]`);
  });

  it("正好 2000 行：不截", () => {
    expect(tail(`${numbered(1, 2000)}\n`)).toBe(numbered(1, 2000));
  });

  it("字节先到：只留整行，总共不超过 50KB", () => {
    const line = "x".repeat(999); // 加上换行 1000 字节：51 行 = 51000 字节，52 行就超了
    const text = tail(`${Array.from({ length: 100 }, () => line).join("\n")}\n`);
    const [kept, note] = text.split("\n\n");
    expect(kept!.split("\n")).toHaveLength(51);
    expect(Buffer.byteLength(kept!)).toBeLessThanOrEqual(MAX_BYTES);
    expect(note).toBe("[输出太长，只留最后 50.0KB：第 50–100 行，共 100 行]");
  });

  it("一行就超过 50KB：只留它的最后 50KB，从一个完整的汉字开始", () => {
    const text = tail(`前面\n${"汉".repeat(30_000)}`); // 90000 字节的一行
    const [kept, note] = text.split("\n\n");
    expect(kept).toBe("汉".repeat(Math.floor(MAX_BYTES / 3)));
    expect(note).toBe("[输出太长，只留第 2 行的最后 50.0KB]");
  });

  it("10 MB 一块一块地来：内存里只留尾巴，行号照样对", () => {
    const output = new OutputTail();
    const chunk = Buffer.from("abcdefghi\n".repeat(64 * 1024)); // 640KB，65536 行
    for (let i = 0; i < 16; i++) output.push(chunk);
    const text = output.text();
    const total = 16 * 65536;
    expect(text.endsWith(`[输出太长，只留最后 2000 行：第 ${total - 1999}–${total} 行，共 ${total} 行]`)).toBe(true);
    expect(text.split("\n\n")[0]!.split("\n")).toEqual(Array.from({ length: 2000 }, () => "abcdefghi"));
  });

  it("半个汉字落在两块之间：拼起来照样是完整的字", () => {
    const bytes = Buffer.from("你好\n");
    expect(tail(bytes.subarray(0, 2), bytes.subarray(2))).toBe("你好");
  });
});
