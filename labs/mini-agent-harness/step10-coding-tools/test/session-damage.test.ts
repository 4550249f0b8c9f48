/**
 * 损坏的、外来的、被两个进程同时用的会话文件（issue 12 的第 8–12 条）。
 * 打开会话文件绝不能把它弄坏：拒绝时一个字节都不改，修补时只动确实坏掉的那半行。
 */

import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

import { loadSession, Session } from "../src/session.js";
import { unlockSession } from "../src/guards/session-lock.js";
import type { Message } from "../src/types.js";
import { makeSandbox, removeSandbox, runCliProcess, withoutProvider } from "./helpers/cli.js";
import { runCli } from "./helpers/in-process.js";

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "harness-damage-"));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true, maxRetries: 10 }));

const user = (content: string): Message => ({ role: "user", content });
const entry = (id: string, parentId: string | null, message: unknown): string => JSON.stringify({ type: "message", id, parentId, message });

describe("第 8 条：截断用字节偏移", () => {
  it("最后一行写了一半、正好断在一个汉字的字节中间：只截掉那半行（按字节），之后的追加完好", () => {
    const file = path.join(dir, "bytes.jsonl");
    // 汉字占 3 个字节、1 个 UTF-16 单元：按字符算的偏移比字节偏移小，截错了地方就会把文件弄坏
    const first = Buffer.from(entry("e1", null, user("前面的汉字")) + "\n");
    const whole = Buffer.from(entry("e2", "e1", user("写到一半")));
    const torn = whole.subarray(0, whole.indexOf(Buffer.from("一")) + 2); // 「一」的 3 个字节只写了 2 个
    fs.writeFileSync(file, Buffer.concat([first, torn]));
    const warnings: string[] = [];
    const session = Session.open(file, warnings);
    expect(warnings[0]).toContain("第 2 行不完整");
    expect(fs.readFileSync(file).equals(first)).toBe(true);
    session.append(user("二"));
    const reopened = Session.open(file);
    expect(reopened.messages().map((message) => message.content)).toEqual(["前面的汉字", "二"]);
  });
});

describe("不是 UTF-8 的会话文件（编辑器另存成了 GBK）：原样拒绝", () => {
  // 「你好」的 GBK 编码：C4 E3 BA C3，不是合法的 UTF-8
  const gbk = (text: string): Buffer => Buffer.concat(text.split("你好").flatMap((part, i) => (i === 0 ? [Buffer.from(part)] : [Buffer.from([0xc4, 0xe3, 0xba, 0xc3]), Buffer.from(part)])));

  it.each([
    ["中间一行", [entry("e1", null, user("一")), entry("e2", "e1", user("你好")), entry("e3", "e2", user("三"))].join("\n") + "\n", 2],
    ["第一行", entry("e1", null, user("你好")) + "\n", 1],
    ["没有换行的最后一行（完整的一条，不是写到一半）", entry("e1", null, user("一")) + "\n" + entry("e2", "e1", user("你好")), 2],
  ])("GBK 的字节在%s：一行说明点名文件、说它不是 UTF-8、建议另存为 UTF-8；文件一个字节都没变", (_where, content, line) => {
    const file = path.join(dir, "gbk.jsonl");
    const bytes = gbk(content as string);
    fs.writeFileSync(file, bytes);
    let message = "";
    try {
      Session.open(file);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain("会话文件 gbk.jsonl 不是 UTF-8 编码");
    expect(message).toContain(`第 ${line} 行`);
    expect(message).toContain("另存为 UTF-8");
    expect(message).not.toContain("\n");
    expect(fs.readFileSync(file).equals(bytes)).toBe(true);
    // 没有留下锁：改成 UTF-8 之后马上能打开
    fs.writeFileSync(file, content as string);
    expect(Session.open(file).messages().length).toBeGreaterThan(0);
  });

  it("只读加载（查看器用的 loadSession）同样拒绝，不把乱码交出去", () => {
    const file = path.join(dir, "gbk.jsonl");
    fs.writeFileSync(file, gbk(entry("e1", null, user("你好")) + "\n"));
    expect(() => loadSession(file)).toThrow(/gbk\.jsonl 不是 UTF-8 编码/);
  });
});

describe("第 9 条：不是会话的文件原样拒绝", () => {
  it.each([
    ["一行没有换行的笔记", "买牛奶"],
    ["多行笔记", "第一行\n第二行\n"],
    ["一个 JSON 数组", "[1, 2, 3]\n"],
    ["别的程序的 JSON 行", '{"name":"x"}\n{"name":"y"}\n'],
  ])("%s：报错说明它不像会话文件，文件一个字节都没变", (_label, content) => {
    const file = path.join(dir, "notes.txt");
    fs.writeFileSync(file, content);
    expect(() => Session.open(file)).toThrow(/notes\.txt 不像会话文件.*没有改动它/);
    expect(fs.readFileSync(file, "utf8")).toBe(content);
  });

  it("命令行 --session 指向一份笔记：退出码 1，笔记完好", async () => {
    const sandbox = makeSandbox();
    try {
      const note = path.join(sandbox, "note.txt");
      fs.writeFileSync(note, "买牛奶");
      const result = await runCli(sandbox, ["--session", "note.txt"], "你好\n");
      expect(result.code).toBe(1);
      expect(result.stderr).toContain("不像会话文件");
      expect(fs.readFileSync(note, "utf8")).toBe("买牛奶");
    } finally {
      removeSandbox(sandbox);
    }
  });
});

describe("第 10 条：容忍 UTF-8 BOM", () => {
  it("BOM 后面只有一条合法的条目：恢复它，文件不被清空", () => {
    const file = path.join(dir, "bom.jsonl");
    const content = "\uFEFF" + entry("e1", null, user("一")) + "\n";
    fs.writeFileSync(file, content);
    const session = Session.open(file);
    expect(session.messages()).toEqual([user("一")]);
    session.append(user("二"));
    expect(Session.open(file).messages()).toEqual([user("一"), user("二")]);
  });

  it("BOM 加一条没有换行结尾的条目：补上换行，不当成半行截掉", () => {
    const file = path.join(dir, "bom-nonl.jsonl");
    fs.writeFileSync(file, "\uFEFF" + entry("e1", null, user("一")));
    expect(Session.open(file).messages()).toEqual([user("一")]);
    expect(fs.readFileSync(file, "utf8")).toBe("\uFEFF" + entry("e1", null, user("一")) + "\n");
  });
});

describe("第 11 条：同一时刻只有一个进程写", () => {
  it("另一个活着的进程持有锁：拒绝，说明是哪个进程，文件不变", () => {
    const file = path.join(dir, "busy.jsonl");
    const content = entry("e1", null, user("一")) + "\n";
    fs.writeFileSync(file, content);
    // 父进程（运行测试的 vitest）一定活着，而且不是我们自己
    fs.writeFileSync(`${file}.lock`, String(process.ppid));
    expect(() => Session.open(file)).toThrow(`正被另一个进程（pid ${process.ppid}）使用`);
    expect(fs.readFileSync(file, "utf8")).toBe(content);
    expect(fs.readFileSync(`${file}.lock`, "utf8")).toBe(String(process.ppid));
  });

  it("陈旧的锁（持有者已经退出）：接管它，照常打开", () => {
    const file = path.join(dir, "stale.jsonl");
    fs.writeFileSync(file, entry("e1", null, user("一")) + "\n");
    const dead = spawnSync(process.execPath, ["-e", ""]).pid!; // 已经结束的进程
    fs.writeFileSync(`${file}.lock`, String(dead));
    expect(Session.open(file).messages()).toEqual([user("一")]);
    expect(fs.readFileSync(`${file}.lock`, "utf8")).toBe(String(process.pid));
    unlockSession(file);
    expect(fs.existsSync(`${file}.lock`)).toBe(false);
  });

  it("新会话在第一次写入时加锁", () => {
    const file = path.join(dir, "new.jsonl");
    const session = Session.create(file);
    expect(fs.existsSync(`${file}.lock`)).toBe(false);
    session.append(user("一"));
    expect(fs.readFileSync(`${file}.lock`, "utf8")).toBe(String(process.pid));
    unlockSession(file);
  });

  it.skipIf(withoutProvider)("两个 CLI 进程先后打开同一个会话：第一个退出后锁被删掉，第二个才能打开", async () => {
    const sandbox = makeSandbox();
    try {
      const file = path.join(sandbox, "shared.jsonl");
      fs.writeFileSync(file, entry("e1", null, user("一")) + "\n");
      const first = await runCliProcess(sandbox, ["--session", "shared.jsonl"], "我叫小明\n");
      expect(first.code, first.stderr).toBe(0);
      expect(fs.existsSync(`${file}.lock`)).toBe(false);
      fs.writeFileSync(`${file}.lock`, String(process.pid)); // 假装有一个活着的进程（本测试进程）正在写
      const second = await runCliProcess(sandbox, ["--session", "shared.jsonl"], "你好\n");
      expect(second.code).toBe(1);
      expect(second.stderr).toContain("正被另一个进程");
      expect(fs.readFileSync(file, "utf8").trimEnd().split("\n")).toHaveLength(3);
    } finally {
      removeSandbox(sandbox);
    }
  });

  it("已经被两个进程写坏的文件（重复的 id）：报错指出是哪两行", () => {
    const file = path.join(dir, "mixed.jsonl");
    fs.writeFileSync(file, [entry("e1", null, user("一")), entry("e2", "e1", user("甲")), entry("e2", "e1", user("乙"))].join("\n") + "\n");
    expect(() => Session.open(file)).toThrow("会话文件 mixed.jsonl 第 3 行：id e2 与第 2 行重复");
  });
});

describe("第 12 条：每一行都检查形状", () => {
  it.each([
    ["null", "null", "应当是一个 JSON 对象"],
    ["message 是字符串", entry("e2", "e1", "你好"), "message 应当是一个对象"],
    ["role 是 system", entry("e2", "e1", { role: "system", content: "x" }), "role 应当是 user、assistant 或 toolResult"],
    ["用户消息的 content 是数组", entry("e2", "e1", { role: "user", content: [] }), "content 应当是字符串"],
    ["助手消息没有 stopReason", entry("e2", "e1", { role: "assistant", content: [] }), "缺少 stopReason"],
    ["助手消息的内容块是 null", entry("e2", "e1", { role: "assistant", content: [null], stopReason: "stop" }), "不是带 type 的对象"],
    ["工具结果缺少 toolCallId", entry("e2", "e1", { role: "toolResult", toolName: "calc", content: "1" }), "缺少 toolCallId 或 toolName"],
    ["id 是数字", JSON.stringify({ type: "message", id: 2, parentId: "e1", message: user("x") }), "缺少字符串字段 id"],
  ])("第 2 行%s：报错指出文件、行号与字段", (_label, line, problem) => {
    const file = path.join(dir, "shape.jsonl");
    const content = entry("e1", null, user("一")) + "\n" + line + "\n";
    fs.writeFileSync(file, content);
    expect(() => Session.open(file)).toThrow(`会话文件 shape.jsonl 第 2 行：`);
    expect(() => loadSession(file)).toThrow(problem);
    expect(fs.readFileSync(file, "utf8")).toBe(content);
  });

  it("loadSession 只读：半行不截掉，也不加锁", () => {
    const file = path.join(dir, "view.jsonl");
    const content = entry("e1", null, user("一")) + "\n{\"type\":\"mes";
    fs.writeFileSync(file, content);
    const warnings: string[] = [];
    const loaded = loadSession(file, warnings);
    expect(loaded.messages).toEqual([user("一")]);
    expect(loaded.repair).toEqual({ truncateAt: Buffer.byteLength(entry("e1", null, user("一")) + "\n") });
    expect(warnings).toHaveLength(1);
    expect(fs.readFileSync(file, "utf8")).toBe(content);
    expect(fs.existsSync(`${file}.lock`)).toBe(false);
  });
});
