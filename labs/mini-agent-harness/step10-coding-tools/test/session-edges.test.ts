/**
 * 会话文件的边角：每一句报错逐字核对、锁的几种少见状态、close 之后再写、数组与 NaN 的 JSON 规矩。
 * 这些测试来自变异测试（npm run mutation）：每一个都对应一处「改坏了也没有测试发现」的代码。
 */

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import { entryProblem } from "../src/guards/session-entries.js";
import { readLines, SESSION_LIMITS } from "../src/guards/session-lines.js";
import { lockSession, unlockSession } from "../src/guards/session-lock.js";
import { entryLine, ioReason } from "../src/guards/session-write.js";
import { loadSession, Session } from "../src/session.js";
import type { Message } from "../src/types.js";

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "harness-session-edges-"));
});
afterEach(() => {
  vi.restoreAllMocks();
  fs.rmSync(dir, { recursive: true, force: true, maxRetries: 10 });
});

const user = (content: string): Message => ({ role: "user", content });
const entry = (id: string, parentId: string | null, message: unknown): string => JSON.stringify({ type: "message", id, parentId, message });
const asMessage = (message: unknown) => ({ type: "message", id: "e1", parentId: null, message });

describe("entryProblem：每一种不合格的条目，说的话逐字核对", () => {
  it.each<[string, unknown, string | undefined]>([
    ["数字", 42, "应当是一个 JSON 对象，收到的是 42"],
    ["数组", [], "应当是一个 JSON 对象，收到的是 []"],
    ["null", null, "应当是一个 JSON 对象，收到的是 null"],
    ["没有 type", {}, "缺少字符串字段 type，收到的是 undefined"],
    ["type 是数字", { type: 1 }, "缺少字符串字段 type，收到的是 1"],
    ["id 是空串", { type: "message", id: "" }, '缺少字符串字段 id，收到的是 ""'],
    ["没有 parentId", { type: "bookmark", id: "b1" }, "parentId 应当是字符串或 null，收到的是 undefined"],
    ["parentId 是数字", { type: "bookmark", id: "b1", parentId: 5 }, "parentId 应当是字符串或 null，收到的是 5"],
    ["不认识的类型，parentId 为 null", { type: "bookmark", id: "b1", parentId: null }, undefined],
    ["不认识的类型，parentId 是字符串", { type: "bookmark", id: "b1", parentId: "e1" }, undefined],
  ])("%s", (_label, value, problem) => {
    expect(entryProblem(value)).toBe(problem);
  });

  it.each<[string, unknown, string | undefined]>([
    ["message 是字符串", "你好", 'message 应当是一个对象，收到的是 "你好"'],
    ["message 是数组", [], "message 应当是一个对象，收到的是 []"],
    ["role 是 system", { role: "system", content: "x" }, 'message 的 role 应当是 user、assistant 或 toolResult，收到的是 "system"'],
    ["没有 role", { content: "x" }, "message 的 role 应当是 user、assistant 或 toolResult，收到的是 undefined"],
    ["合格的用户消息", { role: "user", content: "x" }, undefined],
    ["用户消息的 content 是数组", { role: "user", content: [] }, "message 的 content 应当是字符串，收到的是 []"],
    ["助手消息没有 stopReason", { role: "assistant", content: [] }, "message 缺少 stopReason，收到的是 undefined"],
    ["助手消息的 stopReason 是数字", { role: "assistant", content: [], stopReason: 1 }, "message 缺少 stopReason，收到的是 1"],
    ["助手消息的 content 是字符串", { role: "assistant", content: "x", stopReason: "stop" }, 'message 的 content 应当是数组，收到的是 "x"'],
    ["合格的助手消息（空内容）", { role: "assistant", content: [], stopReason: "stop" }, undefined],
    ["内容块是 null", { role: "assistant", content: [null], stopReason: "stop" }, "message 的 content 里有一块 不是带 type 的对象：null"],
    ["内容块是数组", { role: "assistant", content: [[]], stopReason: "stop" }, "message 的 content 里有一块 不是带 type 的对象：[]"],
    ["内容块的 type 是数字", { role: "assistant", content: [{ type: 3 }], stopReason: "stop" }, 'message 的 content 里有一块 不是带 type 的对象：{"type":3}'],
    ["文本块没有 text", { role: "assistant", content: [{ type: "text" }], stopReason: "stop" }, "message 的 content 里有一块 text 缺少字符串字段 text"],
    [
      "第二块才坏：每一块都检查",
      { role: "assistant", content: [{ type: "text", text: "a" }, { type: "text", text: 2 }], stopReason: "stop" },
      "message 的 content 里有一块 text 缺少字符串字段 text",
    ],
    ["工具调用没有 arguments", { role: "assistant", content: [{ type: "toolCall", id: "c", name: "calc" }], stopReason: "toolUse" }, "message 的 content 里有一块 toolCall 缺少 id、name 或 arguments"],
    ["工具调用的 arguments 是数组", { role: "assistant", content: [{ type: "toolCall", id: "c", name: "calc", arguments: [] }], stopReason: "toolUse" }, "message 的 content 里有一块 toolCall 缺少 id、name 或 arguments"],
    ["工具调用的 id 是数字", { role: "assistant", content: [{ type: "toolCall", id: 1, name: "calc", arguments: {} }], stopReason: "toolUse" }, "message 的 content 里有一块 toolCall 缺少 id、name 或 arguments"],
    ["工具调用的 name 是数字", { role: "assistant", content: [{ type: "toolCall", id: "c", name: 1, arguments: {} }], stopReason: "toolUse" }, "message 的 content 里有一块 toolCall 缺少 id、name 或 arguments"],
    [
      "合格的文本、思考与工具调用",
      { role: "assistant", content: [{ type: "text", text: "a" }, { type: "thinking", thinking: "b" }, { type: "toolCall", id: "c", name: "calc", arguments: {} }], stopReason: "toolUse" },
      undefined,
    ],
    ["将来的内容块类型只要求有 type", { role: "assistant", content: [{ type: "image" }], stopReason: "stop" }, undefined],
    ["工具结果没有 toolName", { role: "toolResult", toolCallId: "c", content: "1" }, "message 缺少 toolCallId 或 toolName"],
    ["工具结果的 toolCallId 是数字", { role: "toolResult", toolCallId: 1, toolName: "calc", content: "1" }, "message 缺少 toolCallId 或 toolName"],
    ["工具结果的 content 是数字", { role: "toolResult", toolCallId: "c", toolName: "calc", content: 1 }, "message 的 content 应当是字符串，收到的是 1"],
    ["合格的工具结果", { role: "toolResult", toolCallId: "c", toolName: "calc", content: "1" }, undefined],
  ])("message：%s", (_label, message, problem) => {
    expect(entryProblem(asMessage(message))).toBe(problem);
  });

  it("收到的值最多显示 40 个字符，更长的截断并加上省略号", () => {
    const forty = JSON.stringify(["a".repeat(36)]); // ["aaa…"] 正好 40 个字符
    expect(forty).toHaveLength(40);
    expect(entryProblem(asMessage({ role: "user", content: ["a".repeat(36)] }))).toBe(`message 的 content 应当是字符串，收到的是 ${forty}`);
    const longer = JSON.stringify(["a".repeat(37)]);
    expect(entryProblem(asMessage({ role: "user", content: ["a".repeat(37)] }))).toBe(`message 的 content 应当是字符串，收到的是 ${longer.slice(0, 40)}…`);
  });
});

describe("readLines：不是普通文件时说出它是什么", () => {
  /** 一个假的 stat：只有 kind 那一项为真（块设备在 Windows 上没有，在容器里也未必能读）。 */
  function fakeStat(kind: string): fs.Stats {
    const is = (name: string) => () => name === kind;
    return { isFile: is("file"), isDirectory: is("dir"), isFIFO: is("fifo"), isCharacterDevice: is("chr"), isBlockDevice: is("blk"), isSocket: is("sock") } as unknown as fs.Stats;
  }

  it.each([
    ["blk", "块设备"],
    ["sock", "套接字"],
    ["none", "特殊文件"],
  ])("%s：是%s", (kind, shown) => {
    vi.spyOn(fs, "statSync").mockReturnValue(fakeStat(kind));
    expect(() => [...readLines(path.join(dir, "odd.jsonl"))]).toThrow(`odd.jsonl 不是普通文件（是${shown}），没有读取它`);
  });
});

describe("readLines：每行的上限与文件句柄", () => {
  const line = (n: number) => "x".repeat(n);

  it("同一块里的多行各自计长：每行都在上限以内就照常读出", () => {
    const file = path.join(dir, "many.jsonl");
    fs.writeFileSync(file, `${line(60)}\n${line(60)}\n${line(60)}\n`);
    expect([...readLines(file, { ...SESSION_LIMITS, lineBytes: 100 })].map((l) => [l.number, l.start, l.text.length, l.ended])).toEqual([
      [1, 0, 60, true],
      [2, 61, 60, true],
      [3, 122, 60, true],
    ]);
  });

  it("正好等于上限的一行照常读出，多一个字节就拒绝", () => {
    const file = path.join(dir, "edge.jsonl");
    fs.writeFileSync(file, `${line(100)}\n`);
    expect([...readLines(file, { ...SESSION_LIMITS, lineBytes: 100 })].map((l) => l.text)).toEqual([line(100)]);
    expect(() => [...readLines(file, { ...SESSION_LIMITS, lineBytes: 99 })]).toThrow("会话文件 edge.jsonl 第 1 行超过每行 99 字节的上限");
  });

  it("读完、读到一半报错、调用方提前不读：文件句柄都关上", () => {
    const opened: number[] = [];
    const closed: number[] = [];
    const openSync = fs.openSync;
    const closeSync = fs.closeSync;
    vi.spyOn(fs, "openSync").mockImplementation((...args: Parameters<typeof fs.openSync>) => {
      const fd = openSync(...args);
      opened.push(fd);
      return fd;
    });
    vi.spyOn(fs, "closeSync").mockImplementation((fd) => {
      closed.push(fd);
      closeSync(fd);
    });
    const file = path.join(dir, "fd.jsonl");
    fs.writeFileSync(file, `${line(10)}\n${line(200)}\n`);
    expect([...readLines(file)]).toHaveLength(2);
    expect(() => [...readLines(file, { ...SESSION_LIMITS, lineBytes: 100 })]).toThrow("超过每行 100 字节的上限");
    for (const _ of readLines(file)) break;
    expect(opened).toHaveLength(3);
    expect(closed).toEqual(opened);
  });
});

describe("会话的锁", () => {
  it("锁文件里写的是本进程的号（比如上次 unlock 之前被复制过）：照常打开，不当成别人的锁", () => {
    const file = path.join(dir, "mine.jsonl");
    fs.writeFileSync(file, entry("e1", null, user("一")) + "\n");
    fs.writeFileSync(`${file}.lock`, String(process.pid));
    const session = Session.open(file);
    expect(session.messages()).toEqual([user("一")]);
    session.close();
    expect(fs.existsSync(`${file}.lock`)).toBe(false); // 接管之后它就是本进程持有的锁，close 时删掉
  });

  it("锁文件读不出进程号、又删不掉：拒绝，说进程号未知", () => {
    const file = path.join(dir, "stuck.jsonl");
    fs.writeFileSync(`${file}.lock`, "不是进程号");
    const rmSync = fs.rmSync;
    vi.spyOn(fs, "rmSync").mockImplementation((target, options) => {
      if (String(target) !== `${file}.lock`) rmSync(target, options);
    });
    const writeFileSync = fs.writeFileSync;
    let tries = 0;
    vi.spyOn(fs, "writeFileSync").mockImplementation((target, data, options) => {
      if (String(target) === `${file}.lock`) tries += 1;
      writeFileSync(target, data, options);
    });
    expect(() => lockSession(file, "stuck.jsonl")).toThrow(
      "会话文件 stuck.jsonl 正被另一个进程（pid 未知）使用；同一个会话同时只能有一个进程写入。如果确定没有别的进程，删掉 stuck.jsonl.lock 再试",
    );
    expect(tries).toBe(2); // 最多抢两次，不会一直抢下去
  });

  it.each([
    ["0（不是进程号）", "0"],
    ["负数", "-5"],
    ["带换行的已结束进程号", "999999999\n"],
  ])("锁文件里是%s：当作陈旧的锁接管", (_label, content) => {
    const file = path.join(dir, "odd-lock.jsonl");
    fs.writeFileSync(file, entry("e1", null, user("一")) + "\n");
    fs.writeFileSync(`${file}.lock`, content);
    expect(Session.open(file).messages()).toEqual([user("一")]);
    expect(fs.readFileSync(`${file}.lock`, "utf8")).toBe(String(process.pid));
  });

  it("持有者存在、只是不属于我们（EPERM）：当作占用；不存在（ESRCH）：接管", () => {
    const file = path.join(dir, "other.jsonl");
    fs.writeFileSync(file, entry("e1", null, user("一")) + "\n");
    fs.writeFileSync(`${file}.lock`, "424242");
    const code = { value: "EPERM" };
    vi.spyOn(process, "kill").mockImplementation((pid) => {
      if (pid !== 424242) throw new Error(`意外的 kill(${pid})`);
      throw Object.assign(new Error(code.value), { code: code.value });
    });
    expect(() => Session.open(file)).toThrow("正被另一个进程（pid 424242）使用");
    code.value = "ESRCH";
    expect(Session.open(file).messages()).toEqual([user("一")]);
  });

  it("锁文件写不进去（不是「已经有了」）：原样报出那个错误；新会话说一句没保存", () => {
    const file = path.join(dir, "rofs.jsonl");
    const writeFileSync = fs.writeFileSync;
    vi.spyOn(fs, "writeFileSync").mockImplementation((target, data, options) => {
      if (String(target) === `${file}.lock`) throw Object.assign(new Error("EROFS: read-only file system"), { code: "EROFS" });
      writeFileSync(target, data, options);
    });
    expect(() => lockSession(file, "rofs.jsonl")).toThrow("EROFS: read-only file system");
    const session = Session.create(file);
    const reported: string[] = [];
    session.warn = (line) => reported.push(line);
    session.append(user("一"));
    expect(reported).toEqual([expect.stringMatching(/^\[会话未保存\] rofs\.jsonl：只读的文件系统（EROFS）。从你说的「一」起/)]);
    expect(fs.existsSync(file)).toBe(false);
  });

  it("unlockSession 只删本进程持有的锁：别人的锁文件留着；自己的锁文件已被删掉也不报错", () => {
    const file = path.join(dir, "theirs.jsonl");
    fs.writeFileSync(`${file}.lock`, String(process.ppid));
    unlockSession(file);
    expect(fs.readFileSync(`${file}.lock`, "utf8")).toBe(String(process.ppid));
    const mine = path.join(dir, "gone.jsonl");
    lockSession(mine, "gone.jsonl");
    fs.rmSync(`${mine}.lock`);
    expect(() => unlockSession(mine)).not.toThrow();
  });

  /**
   * 换一份新加载的 session-lock 模块，用它给 a、b 两个会话加锁：它的退出钩子只管它自己加的锁，
   * 不碰同一个测试进程里别的测试。返回这份模块、两个文件与它新装的退出钩子；测完交给 dropFresh。
   */
  async function freshLocks() {
    vi.resetModules();
    const before = new Set(process.listeners("exit"));
    const fresh = (await import("../src/guards/session-lock.js")) as typeof import("../src/guards/session-lock.js");
    const a = path.join(dir, "a.jsonl");
    const b = path.join(dir, "b.jsonl");
    fresh.lockSession(a, "a.jsonl");
    fresh.lockSession(b, "b.jsonl");
    const hooks = process.listeners("exit").filter((listener) => !before.has(listener)) as Array<() => void>;
    return { fresh, a, b, hooks };
  }

  function dropFresh(hooks: Array<() => void>): void {
    for (const hook of hooks) process.removeListener("exit", hook);
    vi.resetModules(); // 之后的测试文件（同一个 worker）各自加载自己的一份，不接着用这份没有退出钩子的
  }

  it("进程退出时删掉本进程持有的全部锁文件", async () => {
    const { fresh, a, b, hooks } = await freshLocks();
    expect(hooks).toHaveLength(1); // 加了两把锁，退出钩子只装一次
    try {
      expect(fs.existsSync(`${a}.lock`) && fs.existsSync(`${b}.lock`)).toBe(true);
      hooks[0]!();
      expect(fs.existsSync(`${a}.lock`)).toBe(false);
      expect(fs.existsSync(`${b}.lock`)).toBe(false);
      // 钩子之后本进程不再持有它们：再加锁会重新写出锁文件
      fresh.lockSession(a, "a.jsonl");
      expect(fs.readFileSync(`${a}.lock`, "utf8")).toBe(String(process.pid));
      fresh.unlockSession(a);
    } finally {
      dropFresh(hooks);
    }
  });

  it("退出时删不掉某个锁文件：不抛出，其余的照样删掉", async () => {
    const { a, b, hooks } = await freshLocks();
    try {
      const rmSync = fs.rmSync;
      vi.spyOn(fs, "rmSync").mockImplementation((target, options) => {
        if (String(target) === `${a}.lock`) throw Object.assign(new Error("EBUSY"), { code: "EBUSY" });
        rmSync(target, options);
      });
      expect(() => hooks[0]!()).not.toThrow();
      expect(fs.existsSync(`${b}.lock`)).toBe(false);
    } finally {
      dropFresh(hooks);
    }
  });
});

describe("Session.close", () => {
  it("close 放开锁；之后再写会重新加锁", () => {
    const file = path.join(dir, "close.jsonl");
    const session = Session.create(file);
    session.append(user("一"));
    expect(fs.readFileSync(`${file}.lock`, "utf8")).toBe(String(process.pid));
    session.close();
    expect(fs.existsSync(`${file}.lock`)).toBe(false);
    session.append(user("二"));
    expect(fs.readFileSync(`${file}.lock`, "utf8")).toBe(String(process.pid));
    session.close();
    expect(fs.existsSync(`${file}.lock`)).toBe(false);
    expect(Session.open(file).messages()).toEqual([user("一"), user("二")]);
  });

  it("一个还没写过的会话 close：不放开同一个文件上别的会话对象持有的锁", () => {
    const file = path.join(dir, "shared.jsonl");
    const idle = Session.create(file);
    const writer = Session.create(file);
    writer.append(user("一"));
    idle.close();
    expect(fs.existsSync(`${file}.lock`)).toBe(true);
    writer.close();
    expect(fs.existsSync(`${file}.lock`)).toBe(false);
  });
});

describe("Session：打开、新建与最近的文件", () => {
  it("新会话没有历史消息；打开的会话 close 同样放开锁", () => {
    const file = path.join(dir, "fresh.jsonl");
    expect(Session.create(file).messages()).toEqual([]);
    fs.writeFileSync(file, entry("e1", null, user("一")) + "\n");
    const session = Session.open(file);
    expect(fs.existsSync(`${file}.lock`)).toBe(true);
    session.close();
    expect(fs.existsSync(`${file}.lock`)).toBe(false);
  });

  it("latestFile：三个文件里取最近写过的；文件夹里没有会话文件时是 undefined", () => {
    expect(Session.latestFile(dir)).toBeUndefined();
    fs.writeFileSync(path.join(dir, "notes.txt"), "不是会话");
    expect(Session.latestFile(dir)).toBeUndefined();
    const names = ["b.jsonl", "c.jsonl", "a.jsonl"];
    names.forEach((name, i) => {
      const file = path.join(dir, name);
      fs.writeFileSync(file, entry("e1", null, user(name)) + "\n");
      const when = new Date(Date.now() - (3 - i) * 60_000); // b 最早、a 最晚
      fs.utimesSync(file, when, when);
    });
    expect(Session.latestFile(dir)).toBe(path.join(dir, "a.jsonl"));
  });

  it("没有另外指定 warn 时，写不进去的那句话打印到标准错误", () => {
    const session = Session.create(path.join(dir, "stderr.jsonl"));
    const printed: unknown[] = [];
    vi.spyOn(console, "error").mockImplementation((line) => void printed.push(line));
    vi.spyOn(fs, "appendFileSync").mockImplementation(() => {
      throw Object.assign(new Error("EIO"), { code: "EIO" });
    });
    session.append(user("一"));
    expect(printed).toEqual([expect.stringMatching(/^\[会话未保存\] stderr\.jsonl：磁盘读写出错（EIO）/)]);
  });
});

describe("新条目的编号", () => {
  it("接着文件里最大的编号往下排：多位数的编号、不按顺序排的编号都算", () => {
    const file = path.join(dir, "numbers.jsonl");
    fs.writeFileSync(file, entry("e9", null, user("九")) + "\n" + entry("e12", "e9", user("十二")) + "\n" + entry("e3", "e12", user("三")) + "\n");
    const session = Session.open(file);
    session.append(user("新"));
    const last = JSON.parse(fs.readFileSync(file, "utf8").trimEnd().split("\n").at(-1) ?? "{}");
    expect([last.id, last.parentId]).toEqual(["e13", "e3"]);
  });
});

describe("不像会话文件时说的话", () => {
  it.each([
    ["第一行不是 JSON", "你好，这是一份笔记\n", "notes.jsonl 不像会话文件（第 1 行不是 JSON），没有改动它"],
    ["第一行是 JSON、却不是条目", "null\n", "notes.jsonl 不像会话文件（第 1 行：应当是一个 JSON 对象，收到的是 null），没有改动它"],
    ["空行之后的第一条不是条目", '\n{"type":"message"}\n', "notes.jsonl 不像会话文件（第 2 行：缺少字符串字段 id，收到的是 undefined），没有改动它"],
  ])("%s", (_label, content, said) => {
    const file = path.join(dir, "notes.jsonl");
    fs.writeFileSync(file, content);
    expect(() => loadSession(file)).toThrow(new Error(said));
    expect(fs.readFileSync(file, "utf8")).toBe(content);
  });
});

describe("loadSession：空行与 BOM", () => {
  it("最后一行完整、只少了换行：要修补的是补一个换行；只有空白、没有条目的文件不修补", () => {
    const file = path.join(dir, "nonl.jsonl");
    fs.writeFileSync(file, entry("e1", null, user("一")));
    expect(loadSession(file).repair).toEqual({ appendNewline: true });
    fs.writeFileSync(file, "   ");
    expect(loadSession(file)).toEqual({ entries: [], messages: [] });
    expect("repair" in loadSession(file)).toBe(false);
  });

  it("空行和只有空白的行跳过", () => {
    const file = path.join(dir, "blank.jsonl");
    fs.writeFileSync(file, entry("e1", null, user("一")) + "\n\n   \n\t\n" + entry("e2", "e1", user("二")) + "\n");
    const loaded = loadSession(file);
    expect(loaded.messages).toEqual([user("一"), user("二")]);
    expect("repair" in loaded).toBe(false); // 文件完好：结果里没有要修补的地方
  });

  it("只有文件开头的 BOM 跳过：第 2 行开头的 BOM 是坏行", () => {
    const file = path.join(dir, "bom2.jsonl");
    fs.writeFileSync(file, entry("e1", null, user("一")) + "\n\uFEFF" + entry("e2", "e1", user("二")) + "\n");
    expect(() => loadSession(file)).toThrow("会话文件 bom2.jsonl 第 2 行不是合法的 JSON");
  });
});

describe("写不进去时说的是哪一条", () => {
  function failingAppend(): void {
    vi.spyOn(fs, "appendFileSync").mockImplementation(() => {
      throw Object.assign(new Error("ENOSPC: no space left on device"), { code: "ENOSPC" });
    });
  }

  it.each<[string, Message, string]>([
    ["工具结果", { role: "toolResult", toolCallId: "c1", toolName: "calc", content: "2" }, "从工具 calc 的结果起"],
    ["助手的回复", { role: "assistant", content: [{ type: "text", text: "好" }], stopReason: "stop" }, "从助手的回复起"],
    ["20 个字以内的话原样引用", user("一二三四五六七八九十一二三四五六七八九十"), "从你说的「一二三四五六七八九十一二三四五六七八九十」起"],
    ["更长的话只引用前 20 个字", user("一二三四五六七八九十一二三四五六七八九十多"), "从你说的「一二三四五六七八九十一二三四五六七八九十…」起"],
  ])("%s", (_label, message, said) => {
    const session = Session.create(path.join(dir, "full.jsonl"));
    const reported: string[] = [];
    session.warn = (line) => reported.push(line);
    failingAppend();
    session.append(message);
    expect(reported).toEqual([
      `[会话未保存] full.jsonl：磁盘已满（ENOSPC）。${said}，这次对话的消息只显示在屏幕上、没有保存；已经保存的部分下次照常能打开`,
    ]);
  });
});

describe("loadSession：parentId 链", () => {
  it("parentId 形成环：报错，不会一直走下去", () => {
    const file = path.join(dir, "loop.jsonl");
    fs.writeFileSync(file, entry("e1", "e2", user("一")) + "\n" + entry("e2", "e1", user("二")) + "\n");
    expect(() => loadSession(file)).toThrow(/^会话文件 loop\.jsonl 的 parentId 形成了环$/);
  });

  it("一条指向自己的条目也是环", () => {
    const file = path.join(dir, "self.jsonl");
    fs.writeFileSync(file, entry("e1", "e1", user("一")) + "\n");
    expect(() => loadSession(file)).toThrow("会话文件 self.jsonl 的 parentId 形成了环");
  });
});

describe("entryLine：JSON 本来就会改写的值不算对不上", () => {
  it("NaN 与 Infinity 写成 null", () => {
    const message = { role: "assistant", content: [{ type: "toolCall", id: "c", name: "calc", arguments: { x: Number.NaN, y: Infinity, z: 1 } }], stopReason: "toolUse" };
    const line = entryLine({ type: "message", id: "e1", parentId: null, message }, JSON.stringify, 1000);
    expect(JSON.parse(line).message.content[0].arguments).toEqual({ x: null, y: null, z: 1 });
  });

  it("数字变了才算对不上：null 不能冒充一个有限的数", () => {
    const tampered = { toJSON: () => ({ n: null }) };
    expect(() => entryLine(Object.assign(Object.create(tampered) as object, { n: 1 }), JSON.stringify, 1000)).toThrow("写出的一行与消息对不上");
  });

  it("数组里的 undefined 写成 null；长度不同、或数组变成了对象都算对不上", () => {
    expect(entryLine({ list: [1, undefined, 3] }, JSON.stringify, 1000)).toBe('{"list":[1,null,3]}\n');
    const asObject = { toJSON: () => ({ list: { 0: 1 } }) };
    expect(() => entryLine(Object.assign(Object.create(asObject) as object, { list: [1] }), JSON.stringify, 1000)).toThrow("对不上");
    const shorter = { toJSON: () => ({ list: [1] }) };
    expect(() => entryLine(Object.assign(Object.create(shorter) as object, { list: [1, 2] }), JSON.stringify, 1000)).toThrow("对不上");
  });

  /** 一个 toJSON 被换掉的对象：JSON.stringify 写出的是 written，而它自己的字段是 own。 */
  const tampered = (written: unknown, own: object): object => Object.assign(Object.create({ toJSON: () => written }) as object, own);
  /** 同上，但它是一个真的数组（toJSON 放在它自己身上：不是下标，不参与比较）。 */
  const tamperedArray = (written: unknown, items: unknown[]): unknown[] => Object.assign([...items], { toJSON: () => written });

  it("NaN 写出来必须是 null：别的数冒充不了它", () => {
    expect(() => entryLine(tampered({ n: 5 }, { n: Number.NaN }), JSON.stringify, 1000)).toThrow("对不上");
  });

  it("写出的比原来多：多一个字段、数组多一项、对象或数组换成了别的形状，都算对不上", () => {
    expect(() => entryLine(tampered({ a: 1, b: 2 }, { a: 1 }), JSON.stringify, 1000)).toThrow("对不上");
    expect(() => entryLine({ list: tamperedArray([1, 2], [1]) }, JSON.stringify, 1000)).toThrow("对不上");
    expect(() => entryLine({ list: tamperedArray({ 0: 1, length: 1 }, [1]) }, JSON.stringify, 1000)).toThrow("对不上");
    expect(() => entryLine({ list: tamperedArray([1], [1]) }, JSON.stringify, 1000)).not.toThrow(); // 替身本身没有改写时照常写
    expect(() => entryLine(tampered([], {}), JSON.stringify, 1000)).toThrow("对不上");
    expect(() => entryLine(tampered("{}", {}), JSON.stringify, 1000)).toThrow("对不上");
    expect(() => entryLine(tampered("", {}), JSON.stringify, 1000)).toThrow("对不上"); // 空串、数字没有字段：只看字段数会被它们骗过
    expect(() => entryLine(tampered(5, {}), JSON.stringify, 1000)).toThrow("对不上");
    expect(() => entryLine({ inner: tampered(null, {}) }, JSON.stringify, 1000)).toThrow("对不上");
  });

  it("值为函数的字段本来就不写出：不算对不上", () => {
    const withMethod = { role: "user", content: "一", describe: () => "一条消息" };
    expect(entryLine(withMethod, JSON.stringify, 1000)).toBe('{"role":"user","content":"一"}\n');
  });

  it("一行的上限按字节算，正好等于上限时照常写", () => {
    const line = JSON.stringify({ text: "中" });
    const bytes = Buffer.byteLength(line);
    expect(entryLine({ text: "中" }, JSON.stringify, bytes)).toBe(`${line}\n`);
    expect(() => entryLine({ text: "中" }, JSON.stringify, bytes - 1)).toThrow(`这条消息写成一行有 ${bytes} 字节，超过每行 ${bytes - 1} 字节的上限`);
  });

  it("认识的错误码说成人话，别的原样转述", () => {
    expect(ioReason(Object.assign(new Error("x"), { code: "EROFS" }))).toBe("只读的文件系统（EROFS）");
    expect(ioReason(Object.assign(new Error("怪事"), { code: "EWHAT" }))).toBe("怪事");
    expect(ioReason(Object.assign(new Error("原型上的"), { code: "toString" }))).toBe("原型上的");
    expect(ioReason("一句话")).toBe("一句话");
    expect(ioReason(undefined)).toBe("undefined");
  });

  it("已有的会话文件写不进去（目录却可以）：打开时就说", () => {
    const file = path.join(dir, "readonly.jsonl");
    fs.writeFileSync(file, entry("e1", null, user("一")) + "\n");
    const accessSync = fs.accessSync;
    // 用替身：测试常以 root 运行，root 不受文件权限位限制
    vi.spyOn(fs, "accessSync").mockImplementation((target, mode) => {
      if (String(target) === file) throw Object.assign(new Error("EACCES"), { code: "EACCES" });
      accessSync(target, mode);
    });
    expect(() => Session.open(file)).toThrow(`会话无法保存在 ${path.basename(dir)}/：没有写入权限（EACCES）`);
    expect(fs.existsSync(`${file}.lock`)).toBe(false);
  });
});

// 测试之间不留锁：本进程还持有的锁一律放开（在上面那个删目录的 afterEach 之前执行）
afterEach(() => {
  for (const name of fs.existsSync(dir) ? fs.readdirSync(dir) : []) if (name.endsWith(".jsonl")) unlockSession(path.join(dir, name));
});
