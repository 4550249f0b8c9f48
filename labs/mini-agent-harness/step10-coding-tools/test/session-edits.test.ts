/**
 * 学习者自己的编辑、大得离谱的消息与文件、形状不对的内容块（issue 31 的第 1、4、8、12、13 条）。
 * 规矩照旧：一句中文说清是哪个文件、哪一行、为什么；学习者的字节一个不丢。
 */

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import { loadSession, Session } from "../src/session.js";
import { SESSION_LIMITS } from "../src/guards/session-lines.js";
import { entryLine } from "../src/guards/session-write.js";
import type { Message } from "../src/types.js";
import { makeSandbox, removeSandbox } from "./helpers/cli.js";
import { runCli } from "./helpers/in-process.js";

const MAX_SESSION_BYTES = SESSION_LIMITS.fileBytes;

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "harness-edits-"));
});
afterEach(() => {
  vi.restoreAllMocks();
  fs.rmSync(dir, { recursive: true, force: true });
});

const user = (content: string): Message => ({ role: "user", content });
const entry = (id: string, parentId: string | null, message: unknown): string => JSON.stringify({ type: "message", id, parentId, message });
const first = entry("e1", null, user("我叫小明")) + "\n";
const last = entry("e2", "e1", { role: "assistant", content: [{ type: "text", text: "你好，小明。" }], stopReason: "stop" });

/** 学习者在编辑器里改最后一行的几种样子（保存时都没有结尾的换行）。 */
const edits: Array<[string, string]> = [
  ["打错字：删掉了一个引号", last.replace('"text":"', '"text":')],
  ["行尾多了一个逗号", `${last},`],
  ["输入法把引号换成了“”", last.replace('"stopReason"', "“stopReason”")],
  ["行中间多了一个逗号", last.replace('"stop"}', '"stop",}')],
];

describe("第 1 条：学习者改过的最后一行不会被截掉", () => {
  it.each(edits)("%s：拒绝并说出文件与行号，一个字节都不少，不留锁", (_label, edited) => {
    const file = path.join(dir, "edit.jsonl");
    fs.writeFileSync(file, first + edited);
    const before = fs.readFileSync(file);
    expect(() => Session.open(file)).toThrow(/^会话文件 edit\.jsonl 第 2 行（最后一行）不是合法的 JSON，而且不像本程序写到一半留下的.*没有改动它/);
    expect(fs.readFileSync(file).equals(before)).toBe(true);
    expect(fs.readdirSync(dir)).toEqual(["edit.jsonl"]);
  });

  it("命令行 --session 打开改坏的文件：退出码 1，一句话，文件原样", async () => {
    const sandbox = makeSandbox();
    try {
      const file = path.join(sandbox, "edit.jsonl");
      const [, edited] = edits[1]!;
      fs.writeFileSync(file, first + edited);
      const result = await runCli(sandbox, ["--session", "edit.jsonl"], "你好\n");
      expect(result.code).toBe(1);
      expect(result.stderr).toContain("第 2 行（最后一行）不是合法的 JSON");
      expect(result.stderr).not.toMatch(/\n\s+at /);
      expect(fs.readFileSync(file, "utf8")).toBe(first + edited);
    } finally {
      removeSandbox(sandbox);
    }
  });

  it("像本程序写到一半的最后一行：截掉之前原样另存成 .bak，警告说出它的名字；再来一次存成 .2.bak", () => {
    const file = path.join(dir, "torn.jsonl");
    // 写到一半：停在一个三字节汉字的中间
    const whole = entry("e2", "e1", user("写到一半"));
    const torn = Buffer.from(whole.slice(0, whole.indexOf("一半") + 1)).subarray(0, -1);
    fs.writeFileSync(file, Buffer.concat([Buffer.from(first), torn]));
    const warnings: string[] = [];
    Session.open(file, warnings).close();
    expect(warnings).toEqual([`会话文件 torn.jsonl 第 2 行不完整（上次可能写到一半时退出），已跳过；这半行（${torn.length} 字节）原样存进了 torn.jsonl.bak`]);
    expect(fs.readFileSync(file, "utf8")).toBe(first);
    expect(fs.readFileSync(`${file}.bak`).equals(torn)).toBe(true);
    fs.appendFileSync(file, '{"type":"message","id":"e2"');
    const again: string[] = [];
    Session.open(file, again).close();
    expect(again[0]).toContain("原样存进了 torn.jsonl.2.bak");
    expect(fs.readFileSync(`${file}.2.bak`, "utf8")).toBe('{"type":"message","id":"e2"');
  });

  it("另存不了 .bak：什么都不截，说一句，不留锁", () => {
    const file = path.join(dir, "nobak.jsonl");
    const content = first + '{"type":"message","id":"e2","par';
    fs.writeFileSync(file, content);
    const original = fs.writeFileSync;
    vi.spyOn(fs, "writeFileSync").mockImplementation((target, ...rest) => {
      if (String(target).endsWith(".bak")) throw Object.assign(new Error("ENOSPC: no space left on device"), { code: "ENOSPC" });
      original(target, ...rest);
    });
    expect(() => Session.open(file)).toThrow("无法把它另存成 nobak.jsonl.bak");
    vi.restoreAllMocks();
    expect(fs.readFileSync(file, "utf8")).toBe(content);
    expect(fs.existsSync(`${file}.lock`)).toBe(false);
  });
});

describe("第 4 条：一条大得超过每行上限的消息", () => {
  it("截短了再存，屏幕上说一句；文件照常打开，之后的消息照常保存", () => {
    const file = path.join(dir, "big.jsonl");
    const session = Session.create(file, { ...SESSION_LIMITS, lineBytes: 2000 });
    const reported: string[] = [];
    session.warn = (line) => reported.push(line);
    session.append(user("一"));
    const huge: Message = { role: "toolResult", toolCallId: "c1", toolName: "read_file", content: "长".repeat(5000) };
    session.append(huge);
    session.append(user("二"));
    expect(reported).toEqual([expect.stringMatching(/^\[会话\] 工具 read_file 的结果写成一行超过每行 2000 字节的上限：会话文件里存的是截短的版本/)]);
    expect(huge.content).toBe("长".repeat(5000)); // 这次对话里的消息没有被改动
    const messages = Session.open(file, [], { ...SESSION_LIMITS, lineBytes: 2000 }).messages();
    expect(messages.map((m) => m.role)).toEqual(["user", "toolResult", "user"]);
    expect(messages[1]?.content).toMatch(/^长+…［会话文件只保存了前 \d+ 个字符，原文 5000 个字符］$/);
    expect(fs.readFileSync(file, "utf8").split("\n").every((line) => Buffer.byteLength(line) <= 2000)).toBe(true);
  });

  it("助手回复里的每一段过长文字都截短，工具调用的参数也一样", () => {
    const file = path.join(dir, "parts.jsonl");
    const session = Session.create(file, { ...SESSION_LIMITS, lineBytes: 3000 });
    session.warn = () => {};
    session.append({
      role: "assistant",
      content: [
        { type: "text", text: "甲".repeat(3000) },
        { type: "toolCall", id: "c1", name: "calc", arguments: { expression: "1".repeat(5000) } },
      ],
      stopReason: "toolUse",
    });
    const [saved] = Session.open(file, [], { ...SESSION_LIMITS, lineBytes: 3000 }).messages();
    expect(saved?.role).toBe("assistant");
    expect(JSON.stringify(saved)).toContain("原文 3000 个字符");
    expect(JSON.stringify(saved)).toContain("原文 5000 个字符");
  });

  it("长得超过 JavaScript 字符串的上限：说的是消息太大，不怪 toJSON", () => {
    vi.spyOn(JSON, "stringify").mockImplementationOnce(() => {
      throw new RangeError("Invalid string length");
    });
    expect(() => entryLine({ text: "很长" }, JSON.stringify, 1000)).toThrow("这条消息太大，写成一行超过了 JavaScript 字符串的上限");
  });

  it("第一次写成一行就超过 V8 的字符串上限：截短后照常保存，没有「会话未保存」", () => {
    const file = path.join(dir, "v8.jsonl");
    const session = Session.create(file, { ...SESSION_LIMITS, lineBytes: 1000 });
    const reported: string[] = [];
    session.warn = (line) => reported.push(line);
    vi.spyOn(JSON, "stringify").mockImplementationOnce(() => {
      throw new RangeError("Invalid string length");
    });
    session.append(user("长".repeat(2000)));
    expect(reported).toHaveLength(1);
    expect(reported[0]).toMatch(/^\[会话\] 你说的「长+…」写成一行超过每行 1000 字节的上限/);
    expect(reported[0]).not.toContain("toJSON");
    expect(Session.open(file, [], { ...SESSION_LIMITS, lineBytes: 1000 }).messages()).toHaveLength(1);
  });
});

describe("第 8 条：大得每一轮都会失败的会话文件", () => {
  it("打开时就拒绝，说出大小与上限，一个字节都不读、不改", () => {
    const file = path.join(dir, "huge.jsonl");
    fs.writeFileSync(file, first.repeat(100));
    const size = fs.statSync(file).size;
    const readSync = vi.spyOn(fs, "readSync");
    expect(() => Session.open(file, [], { lineBytes: 1000, fileBytes: 2000 })).toThrow(`会话文件 huge.jsonl 有 ${size} 字节，超过每个会话 2000 字节的上限`);
    expect(() => loadSession(file, [], { lineBytes: 1000, fileBytes: 2000 })).toThrow("每一轮都会失败。没有读入它（也没有改动文件）；请开一个新会话");
    expect(readSync).not.toHaveBeenCalled();
    expect(fs.statSync(file).size).toBe(size);
    expect(fs.existsSync(`${file}.lock`)).toBe(false);
  });

  it("命令行 --session 打开一个比 256 MiB 还大的会话（稀疏文件，不占磁盘）：一句话说出大小与上限，退出码 1，文件不变", async () => {
    const sandbox = makeSandbox();
    try {
      const file = path.join(sandbox, "big.jsonl");
      fs.writeFileSync(file, first);
      fs.truncateSync(file, MAX_SESSION_BYTES + 1);
      const result = await runCli(sandbox, ["--session", "big.jsonl"], "你好\n");
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`会话文件 big.jsonl 有 ${MAX_SESSION_BYTES + 1} 字节（256.0 MiB），超过每个会话 ${MAX_SESSION_BYTES} 字节（256.0 MiB）的上限`);
      expect(result.stderr).not.toMatch(/\n\s+at /);
      expect(fs.statSync(file).size).toBe(MAX_SESSION_BYTES + 1);
    } finally {
      removeSandbox(sandbox);
    }
  });

  it("写入时也守同一个上限：到了上限就停止保存、说一句，文件下次照常打开", () => {
    const file = path.join(dir, "grow.jsonl");
    const session = Session.create(file, { lineBytes: 1000, fileBytes: 300 });
    const reported: string[] = [];
    session.warn = (line) => reported.push(line);
    for (let i = 1; i <= 10; i++) session.append(user(`第 ${i} 句话`));
    expect(reported).toEqual([expect.stringMatching(/^\[会话未保存\] grow\.jsonl：会话文件已经到了每个会话 300 字节的上限.*从你说的「第 \d+ 句话」起/)]);
    expect(fs.statSync(file).size).toBeLessThanOrEqual(300);
    expect(Session.open(file, [], { lineBytes: 1000, fileBytes: 300 }).messages().length).toBeGreaterThan(0);
  });
});

describe("第 12 条：加载时就检查内容块的形状", () => {
  it.each([
    ["text 块没有 text", { type: "text" }, "text 缺少字符串字段 text"],
    ['"thinking": 42', { type: "thinking", thinking: 42 }, "thinking 的 thinking 应当是字符串，收到的是 42"],
    ["thinkingSignature 不是字符串", { type: "thinking", thinking: "想", thinkingSignature: 7 }, "thinking 的 thinkingSignature 应当是字符串，收到的是 7"],
    ["工具调用的 id 是空的", { type: "toolCall", id: "", name: "calc", arguments: {} }, "toolCall 的 id 是空的"],
    ["工具调用的 name 是空的", { type: "toolCall", id: "c1", name: "", arguments: {} }, "toolCall 的 name 是空的"],
  ])("%s：一句话说出文件、行号与那一块，文件不动", (_label, block, problem) => {
    const file = path.join(dir, "blocks.jsonl");
    const content = first + entry("e2", "e1", { role: "assistant", content: [block], stopReason: "stop" }) + "\n";
    fs.writeFileSync(file, content);
    expect(() => loadSession(file)).toThrow(`会话文件 blocks.jsonl 第 2 行：message 的 content 里有一块 ${problem}`);
    expect(() => Session.open(file)).toThrow("会话文件 blocks.jsonl 第 2 行");
    expect(fs.readFileSync(file, "utf8")).toBe(content);
  });

  it("工具结果的 toolCallId 是空的：同样拒绝", () => {
    const file = path.join(dir, "result.jsonl");
    fs.writeFileSync(file, first + entry("e2", "e1", { role: "toolResult", toolCallId: "", toolName: "calc", content: "1" }) + "\n");
    expect(() => loadSession(file)).toThrow("会话文件 result.jsonl 第 2 行：message 的 toolCallId 是空的");
  });
});

describe("第 13 条：--session 的相对路径", () => {
  it("找不到时说明相对路径按步骤目录解析，并给出找的是哪里", async () => {
    const sandbox = makeSandbox();
    try {
      const result = await runCli(sandbox, ["--session", "./x.jsonl"], "");
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`找不到会话文件：./x.jsonl（相对路径按步骤目录 ${path.basename(sandbox)}/ 解析，找的是 ${path.join(sandbox, "x.jsonl")}）`);
    } finally {
      removeSandbox(sandbox);
    }
  });
});
