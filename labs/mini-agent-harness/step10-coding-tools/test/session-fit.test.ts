/**
 * src/guards/session-write.ts 的 lineWithinLimit 直接在测试进程里测（CLI 测试里的超长消息跑在子进程里，变异测试看不到那里）：
 * 放得下的原样写；放不下的把过长的文字截短、注明原来多长，这一行守住上限；
 * 截短不拆开代理对，正好 K 个字符的不截；再截一次时按比例缩；截到很短仍放不下就抛 LineTooLong；
 * 别的错误（原样写时、截短之后写时）原样抛出，不去截短；原来的消息不动。
 */
import { describe, expect, it } from "vitest";

import { LineTooLong, lineWithinLimit } from "../src/guards/session-write.js";
import type { Message } from "../src/types.js";

const entry = (message: Message) => ({ type: "message", id: "a1", parentId: null, message });
const saved = (line: string) => JSON.parse(line) as { message: Record<string, unknown> };
const bytesOf = (line: string) => Buffer.byteLength(line);
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** 说明里的「每段文字最多 K 个字符」的 K。 */
const announcedKeep = (told: string[]) => Number(/每段文字最多 (\d+) 个字符/.exec(told[0] ?? "")?.[1]);

/** run 抛出的值（不抛就是 undefined）：要对同一个值看好几样。 */
function thrownBy(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
}

function fit(message: Message, max: number) {
  const told: string[] = [];
  const line = lineWithinLimit(entry(message), JSON.stringify, max, (l) => told.push(l));
  return { line, told };
}

describe("放得下：原样写，什么也不说", () => {
  it("一行就是 JSON 加换行，和消息一字不差", () => {
    const message: Message = { role: "user", content: "你好" };
    const { line, told } = fit(message, 1000);
    expect(line).toBe(`${JSON.stringify(entry(message))}\n`);
    expect(told).toEqual([]);
  });
});

describe("放不下：截短过长的文字", () => {
  it("工具结果 5000 个字符、上限 1000 字节：存进去的一行不超过上限，截断处注明原来多长，说一句", () => {
    const message: Message = { role: "toolResult", toolCallId: "c1", toolName: "read_file", content: "字".repeat(5000) };
    const { line, told } = fit(message, 1000);
    expect(bytesOf(line)).toBeLessThanOrEqual(1000);
    const content = saved(line).message.content as string;
    expect(content).toMatch(/^字+…［会话文件只保存了前 (\d+) 个字符，原文 5000 个字符］$/);
    const kept = Number(/前 (\d+) 个字符/.exec(content)?.[1]);
    expect(content.startsWith("字".repeat(kept))).toBe(true);
    expect(kept).toBeGreaterThan(0);
    expect(told).toHaveLength(1);
    expect(told[0]).toMatch(/^\[会话\] 工具 read_file 的结果写成一行超过每行 1000 字节的上限：会话文件里存的是截短的版本（每段文字最多 \d+ 个字符/);
    expect(told[0]).toContain(`最多 ${kept} 个字符`);
    expect(message.content).toHaveLength(5000); // 原来的消息不动：屏幕上和这次对话里它是完整的
  });

  it("只截过长的那一段：短的文字、数字、布尔、null 原样；工具调用的参数里深处的长文字也截", () => {
    const message: Message = {
      role: "assistant",
      stopReason: "toolUse",
      content: [
        { type: "text", text: "好的" },
        { type: "toolCall", id: "c1", name: "write_file", arguments: { path: "a.txt", body: { lines: ["x".repeat(3000)] }, n: 3, ok: true, none: null } },
      ],
    };
    const { line } = fit(message, 800);
    expect(bytesOf(line)).toBeLessThanOrEqual(800);
    const [text, call] = saved(line).message.content as [{ text: string }, { arguments: { path: string; body: { lines: string[] }; n: number; ok: boolean; none: null } }];
    expect(text.text).toBe("好的");
    expect(call.arguments.path).toBe("a.txt");
    expect(call.arguments.n).toBe(3);
    expect(call.arguments.ok).toBe(true);
    expect(call.arguments.none).toBeNull();
    expect(call.arguments.body.lines[0]).toMatch(/^x+…［会话文件只保存了前 \d+ 个字符，原文 3000 个字符］$/);
  });

  it("参数里有个叫 __proto__ 的键（JSON.parse 给出的是普通的属性）：截短的版本里它还在", () => {
    const args = JSON.parse(`{"__proto__":{"kept":true},"body":"${"x".repeat(3000)}"}`) as Record<string, unknown>;
    const message: Message = { role: "assistant", stopReason: "toolUse", content: [{ type: "toolCall", id: "c1", name: "write_file", arguments: args }] };
    const { line, told } = fit(message, 1000);
    expect(told).toHaveLength(1);
    expect(line).toContain('"__proto__":{"kept":true}');
    const [call] = saved(line).message.content as [{ arguments: Record<string, unknown> }];
    expect(Object.keys(call.arguments)).toEqual(["__proto__", "body"]);
  });

  it("截断处落在一个 emoji 的两半之间：少留一个字符，不留下半个代理对", () => {
    for (let max = 300; max < 340; max++) {
      const { line, told } = fit({ role: "user", content: "😀".repeat(400) }, max);
      const content = saved(line).message.content as string;
      expect(LONE_SURROGATE.test(content), `上限 ${max}`).toBe(false);
      const kept = Number(/前 (\d+) 个字符/.exec(content)?.[1]);
      expect(kept % 2, `上限 ${max}：留下 ${kept} 个 UTF-16 单元`).toBe(0);
      // 少留一个，不是多留一个：说出的「最多 K 个字符」要守住
      expect(kept, `上限 ${max}`).toBeLessThanOrEqual(announcedKeep(told));
      expect(bytesOf(line)).toBeLessThanOrEqual(max);
    }
  });

  it("截断处前后是 emoji 与普通字符交替：按截断处那一个字符判断，不留下半个代理对", () => {
    for (let max = 300; max < 330; max++) {
      const { line } = fit({ role: "user", content: "😀x".repeat(300) }, max);
      const content = saved(line).message.content as string;
      expect(LONE_SURROGATE.test(content), `上限 ${max}`).toBe(false);
    }
  });

  it("上万段各自不长的文字：截到很短也放不下，抛出 LineTooLong，不说截短了", () => {
    const parts = Array.from({ length: 2000 }, () => ({ type: "text" as const, text: "abc" }));
    const told: string[] = [];
    expect(() => lineWithinLimit(entry({ role: "assistant", stopReason: "stop", content: parts }), JSON.stringify, 500, (l) => told.push(l))).toThrow(LineTooLong);
    expect(told).toEqual([]);
  });

  it("不是「太长」的错误（写出的一行与消息对不上）原样抛出，不去截短", () => {
    // 一个 toJSON 会抛错的值：写不出这一行，和「太长」无关
    const odd = { role: "toolResult", toolCallId: "c1", toolName: "t", content: "x", extra: { toJSON: () => { throw new Error("坏"); } } } as unknown as Message;
    const told: string[] = [];
    const thrown = thrownBy(() => lineWithinLimit(entry(odd), JSON.stringify, 10_000, (l) => told.push(l)));
    expect(thrown).toBeInstanceOf(Error);
    expect(thrown).not.toBeInstanceOf(LineTooLong);
    expect((thrown as Error).message).toContain("写出的一行与消息对不上");
    expect(told).toEqual([]);
  });

  it("正好 K 个字符的文字不截：只截比「每段最多 K 个字符」长的", () => {
    // K 随短的那段长度变：找出短的那段正好 K 个字符的长度，再看它原样存下
    const message = (short: number): Message => ({ role: "assistant", stopReason: "stop", content: [{ type: "text", text: "y".repeat(short) }, { type: "text", text: "x".repeat(20_000) }] });
    const exact = Array.from({ length: 200 }, (_, i) => i + 1).filter((short) => announcedKeep(fit(message(short), 1000).told) === short);
    expect(exact.length).toBeGreaterThan(0);
    for (const short of exact) {
      const [first, second] = saved(fit(message(short), 1000).line).message.content as [{ text: string }, { text: string }];
      expect(first.text).toBe("y".repeat(short));
      expect(second.text).toMatch(new RegExp(`^x{${short}}…［会话文件只保存了前 ${short} 个字符，原文 20000 个字符］$`));
    }
  });

  it("第一次截短仍放不下：下一次按超出的比例再截，不是一下子砍到八分之一，存下的一行仍用到上限的大半", () => {
    const parts = Array.from({ length: 10 }, () => ({ type: "text" as const, text: "x".repeat(3000) }));
    const { line, told } = fit({ role: "assistant", stopReason: "stop", content: parts }, 3000);
    expect(bytesOf(line)).toBeLessThanOrEqual(3000);
    expect(bytesOf(line)).toBeGreaterThan(3000 * 0.75);
    expect(told).toHaveLength(1);
  });

  it("原样写不出（不是太长）的条目不去截短：截短的副本里没有那个 Date，写得出来，但存下的就和消息不一样了", () => {
    // cutLongText 把 Date 抄成 {}：若把这种错误也当作太长，就会悄悄存下一份少了东西的消息
    const odd = { role: "toolResult", toolCallId: "c1", toolName: "t", content: "x", at: new Date(0) } as unknown as Message;
    const told: string[] = [];
    expect(() => lineWithinLimit(entry(odd), JSON.stringify, 10_000, (l) => told.push(l))).toThrow("写出的一行与消息对不上");
    expect(told).toEqual([]);
  });

  it("截短之后的那一次出了别的错（toJSON 第二次交出的和消息对不上）：把那个错误抛出来，不再接着截", () => {
    let calls = 0;
    // 第一次交出一段很长的文字（太长），之后交出短的（对不上）
    const extra = { toJSON: () => (calls++ === 0 ? "y".repeat(5000) : "短") };
    const odd = { role: "toolResult", toolCallId: "c1", toolName: "t", content: "x", extra } as unknown as Message;
    const told: string[] = [];
    const thrown = thrownBy(() => lineWithinLimit(entry(odd), JSON.stringify, 1000, (l) => told.push(l)));
    expect(thrown).not.toBeInstanceOf(LineTooLong);
    expect((thrown as Error).message).toContain("写出的一行与消息对不上");
    expect(calls).toBe(2);
    expect(told).toEqual([]);
  });
});
