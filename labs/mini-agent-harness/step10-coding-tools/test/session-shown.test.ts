/**
 * 会话的提示里引用外来的文字（issue 31 第 14 条的同类）：你说的话、模型起的工具名、文件名、错误原因。
 * 它们出现在 [会话未保存]、[会话] 这两句提示里：控制字符与双向控制符要写成看得见的样子，
 * 换行也一样——一句提示永远是一行；会话文件里存的仍是原文。
 */

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import { Session } from "../src/session.js";
import { shownOnOneLine } from "../src/guards/shown.js";
import type { Message } from "../src/types.js";
import { SESSION_LIMITS } from "../src/guards/session-lines.js";

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "harness-shown-"));
});
afterEach(() => {
  vi.restoreAllMocks();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** 终端会当真的字符：C0（含换行、制表符）、DEL、C1、双向控制符、行与段落分隔符。 */
const RAW = /[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/;

/** 第一次以后的追加都失败，像磁盘写满那样。 */
function diskFullAfter(n: number): void {
  const original = fs.appendFileSync;
  let writes = 0;
  vi.spyOn(fs, "appendFileSync").mockImplementation((file, data) => {
    if (++writes <= n) return original(file, data);
    throw Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
  });
}

describe("shownOnOneLine：外来的文字在提示里只占一行、看得见", () => {
  it("ESC、换行、制表符、回车、DEL、C1、双向控制符都写成 \\x 或 \\u 的写法", () => {
    const shown = shownOnOneLine("a\x1b[2Jb\nc\td\re\x7ff\x9bg\u202eh\u2066i\u2028j");
    expect(shown).toBe("a\\x1b[2Jb\\x0ac\\x09d\\x0de\\x7ff\\x9bg\\u202eh\\u2066i\\u2028j");
    expect(shown).not.toMatch(RAW);
  });

  it("普通的中文、表情照原样", () => {
    expect(shownOnOneLine("帮我算 17*38 😀")).toBe("帮我算 17*38 😀");
  });

  it("只留前 n 个字符（按 Unicode 字符数，不把表情切成两半），后面写「…」", () => {
    expect(shownOnOneLine("😀".repeat(30), 20)).toBe(`${"😀".repeat(20)}…`);
    expect(shownOnOneLine("一二三", 3)).toBe("一二三");
  });

  it("先截再转写：截断处不会落在 \\x1b 这样的写法中间", () => {
    expect(shownOnOneLine("\x1b".repeat(5), 2)).toBe("\\x1b\\x1b…");
  });
});

describe("会话的提示：外来的文字不把一句提示拆开，也不控制终端", () => {
  it("[会话未保存]：你说的话里有 ESC、换行与 U+202E，提示仍是一行，会话文件里是原文", () => {
    const file = path.join(dir, "full.jsonl");
    const session = Session.create(file);
    const reported: string[] = [];
    session.warn = (line) => reported.push(line);
    diskFullAfter(1);
    session.append({ role: "user", content: "第一句\x1b]0;pwned\x07" });
    session.append({ role: "user", content: "二\n[会话] 一切正常\u202e反了" });
    expect(reported).toHaveLength(1);
    expect(reported[0]).not.toMatch(RAW);
    expect(reported[0]).toContain("你说的「二\\x0a[会话] 一切正常\\u202e反了」");
    vi.restoreAllMocks();
    expect(Session.open(file).messages()).toEqual([{ role: "user", content: "第一句\x1b]0;pwned\x07" }]);
  });

  it("[会话未保存]：模型起的工具名里有控制字符，也只是一行", () => {
    const session = Session.create(path.join(dir, "tool.jsonl"));
    const reported: string[] = [];
    session.warn = (line) => reported.push(line);
    diskFullAfter(0);
    session.append({ role: "toolResult", toolCallId: "c1", toolName: "calc\x1b[31m\nfake", content: "1" });
    expect(reported).toHaveLength(1);
    expect(reported[0]).not.toMatch(RAW);
    expect(reported[0]).toContain("工具 calc\\x1b[31m\\x0afake 的结果");
  });

  it("[会话未保存]：错误原因里的换行（扩展或文件系统给的文字）也写成 \\x0a", () => {
    const session = Session.create(path.join(dir, "reason.jsonl"));
    const reported: string[] = [];
    session.warn = (line) => reported.push(line);
    vi.spyOn(fs, "appendFileSync").mockImplementation(() => {
      throw new Error("坏了\n[会话] 已保存\x1b[2J");
    });
    session.append({ role: "user", content: "一" });
    expect(reported).toHaveLength(1);
    expect(reported[0]).not.toMatch(RAW);
    expect(reported[0]).toContain("坏了\\x0a[会话] 已保存\\x1b[2J");
  });

  it("[会话] 截短再存：工具名里的控制字符同样看得见，会话文件里是原名", () => {
    const file = path.join(dir, "cut.jsonl");
    const session = Session.create(file, { ...SESSION_LIMITS, lineBytes: 2000 });
    const reported: string[] = [];
    session.warn = (line) => reported.push(line);
    const toolName = "read\u202eelif\x1b[8m";
    session.append({ role: "toolResult", toolCallId: "c1", toolName, content: "长".repeat(5000) });
    expect(reported).toHaveLength(1);
    expect(reported[0]).toMatch(/^\[会话\] 工具 read\\u202eelif\\x1b\[8m 的结果写成一行超过每行 2000 字节的上限/);
    expect(reported[0]).not.toMatch(RAW);
    const [saved] = Session.open(file, [], { ...SESSION_LIMITS, lineBytes: 2000 }).messages() as Message[];
    expect(saved?.role === "toolResult" && saved.toolName).toBe(toolName);
  });

  it("你说的话很长：提示里只引用前 20 个字符", () => {
    const session = Session.create(path.join(dir, "long.jsonl"));
    const reported: string[] = [];
    session.warn = (line) => reported.push(line);
    diskFullAfter(0);
    session.append({ role: "user", content: `${"字".repeat(25)}\n` });
    expect(reported[0]).toContain(`你说的「${"字".repeat(20)}…」`);
  });
});
