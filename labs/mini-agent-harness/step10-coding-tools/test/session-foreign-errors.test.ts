/**
 * 会话代码描述一个被抛出的值时，不能自己再崩一次（issue 31 第 5 类）。
 *
 * 写入与另存 .bak 的错误来自 node:fs，平常总是 Error；可扩展和会话在同一个进程里，
 * 它改了 fs.appendFileSync、fs.writeFileSync 或 JSON.parse，抛出来的就可能是 Object.create(null)、
 * message 一读就抛的 Error、陷阱会抛的 Proxy、Symbol。这里用 vi.spyOn 扮演那样的扩展，
 * 走的是真实的 Session.append / Session.open：一句说明，对话照常，文件一个字节不少。
 */

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import { Session } from "../src/session.js";
import { tornTailStart } from "../src/guards/session-tail.js";
import { ioReason } from "../src/guards/session-write.js";
import type { Message } from "../src/types.js";
import { HOSTILE_VALUES } from "./helpers/hostile-values.js";

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "harness-foreign-errors-"));
});
afterEach(() => {
  vi.restoreAllMocks();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** 几种坏值，再加上 undefined */
const HOSTILE: Array<[string, () => unknown]> = [...HOSTILE_VALUES, ["undefined", () => undefined]];

const user = (content: string): Message => ({ role: "user", content });
const entry = (id: string, parentId: string | null, message: Message): string => JSON.stringify({ type: "message", id, parentId, message });

describe.each(HOSTILE)("被抛出的是 %s", (_label, make) => {
  it("ioReason：说成一句话，自己不抛", () => {
    const text = ioReason(make());
    expect(typeof text).toBe("string");
    expect(text.length).toBeGreaterThan(0);
  });

  it("追加时抛出：一行 [会话未保存]，之后的 append 照常返回，已经写下的不丢", () => {
    const file = path.join(dir, "append.jsonl");
    const session = Session.create(file);
    const reported: string[] = [];
    session.warn = (line) => reported.push(line);
    session.append(user("一"));
    vi.spyOn(fs, "appendFileSync").mockImplementation(() => {
      throw make();
    });
    expect(() => session.append(user("二"))).not.toThrow();
    expect(() => session.append(user("三"))).not.toThrow();
    expect(reported).toEqual([expect.stringMatching(/^\[会话未保存\] append\.jsonl：.+。从你说的「二」起/)]);
    vi.restoreAllMocks();
    expect(fs.readFileSync(file, "utf8")).toBe(entry("e1", null, user("一")) + "\n");
  });

  it("另存 .bak 时抛出：一句「无法把它另存成 …bak」，文件一个字节不动", () => {
    const file = path.join(dir, "torn.jsonl");
    const text = entry("e1", null, user("一")) + "\n" + '{"type":"message","id":"e2","par';
    fs.writeFileSync(file, text);
    const original = fs.writeFileSync;
    // 只换掉另存 .bak 的那一次：锁文件照常写
    vi.spyOn(fs, "writeFileSync").mockImplementation((target, ...rest) => {
      if (String(target).endsWith(".bak")) throw make();
      return original(target, ...rest);
    });
    expect(() => Session.open(file)).toThrow(/^会话文件 torn\.jsonl 的最后一行不完整，但无法把它另存成 torn\.jsonl\.bak（.+），没有改动文件$/);
    vi.restoreAllMocks();
    expect(fs.readFileSync(file, "utf8")).toBe(text);
    expect(fs.existsSync(`${file}.lock`)).toBe(false);
  });

  it("解析一行时抛出（JSON.parse 被换掉了）：说出文件名与行号，不是宿主自己的 TypeError", () => {
    const unparsed = { lineNumber: 2, start: 10, line: "{坏", ended: true };
    expect(() => tornTailStart("x.jsonl", unparsed, 1, make())).toThrow(/^会话文件 x\.jsonl 第 2 行不是合法的 JSON：.+$/);
    expect(() => tornTailStart("x.jsonl", { ...unparsed, ended: false }, 1, make())).toThrow(/^会话文件 x\.jsonl 第 2 行（最后一行）不是合法的 JSON/);
  });
});

describe("平常的错误照旧", () => {
  it("认识的错误码说成人话，别的说 message", () => {
    expect(ioReason(Object.assign(new Error("x"), { code: "EROFS" }))).toBe("只读的文件系统（EROFS）");
    expect(ioReason(new Error("怪事"))).toBe("怪事");
    expect(ioReason("一句话")).toBe("一句话");
  });

  it("坏掉的中间行里有 ESC：JSON.parse 的说明引用了那段原文，报出来仍是一行、看得见", () => {
    const file = path.join(dir, "esc.jsonl");
    fs.writeFileSync(file, [entry("e1", null, user("一")), '\x1b]0;pwned\x07{"type":"message"}', entry("e3", "e1", user("三"))].join("\n") + "\n");
    let thrown: unknown;
    try {
      Session.open(file);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(Error);
    const message = (thrown as Error).message;
    expect(message).toMatch(/^会话文件 esc\.jsonl 第 2 行不是合法的 JSON：/);
    expect(message).not.toMatch(/[\x00-\x1f]/);
  });
});
