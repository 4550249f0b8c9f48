/**
 * 会话文件里嵌套极深的一行（手改的、别的程序写的）：JSON.parse 解析得出来，可之后逐层的检查、
 * 说出「收到的是什么」的 JSON.stringify、下一轮构造请求，都会用完调用栈。
 * 读的时候超过 MAX_ENTRY_DEPTH 层就拒收，说出文件与行号，文件不动；写的时候守同一个上限。
 */

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

import { MAX_ENTRY_DEPTH, MAX_JSON_DEPTH, tooDeep } from "../src/guards/json.js";
import { Session } from "../src/session.js";
import type { Message } from "../src/types.js";

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "harness-session-depth-"));
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

/** levels 层嵌套的对象，写成 JSON 文本（不经过 JSON.stringify：它自己就会用完调用栈）。 */
const nested = (levels: number): string => `${'{"a":'.repeat(levels)}1${"}".repeat(levels)}`;
const FIRST = JSON.stringify({ type: "message", id: "e1", parentId: null, message: { role: "user", content: "算一下" } });
/** 第二行：一条助手消息，工具调用的参数是 argsJson。 */
const callLine = (argsJson: string): string =>
  `{"type":"message","id":"e2","parentId":"e1","message":{"role":"assistant","stopReason":"toolUse","content":[{"type":"toolCall","id":"c1","name":"calc","arguments":${argsJson}}]}}`;

function write(name: string, lines: string[]): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, lines.map((line) => `${line}\n`).join(""));
  return file;
}

describe("tooDeep 数层数", () => {
  it.each([
    ["标量", 1, 1, undefined],
    ["正好 limit 层", JSON.parse(nested(5)), 5, undefined],
    ["多一层", JSON.parse(nested(6)), 5, "嵌套超过 5 层（真实的数据不会这么深）"],
    ["数组也算层", [[[[]]]], 3, "嵌套超过 3 层（真实的数据不会这么深）"],
    ["深的一支在后面的元素里", { a: 1, b: [0, { c: [[1]] }] }, 4, "嵌套超过 4 层（真实的数据不会这么深）"],
    ["默认的上限", JSON.parse(nested(MAX_JSON_DEPTH + 1)), undefined, `嵌套超过 ${MAX_JSON_DEPTH} 层（真实的数据不会这么深）`],
    ["默认的上限正好那么多层", JSON.parse(nested(MAX_JSON_DEPTH)), undefined, undefined],
    ["很宽但很浅：十万个元素", JSON.parse(`[${Array.from({ length: 100_000 }, () => '{"a":[1]}').join(",")}]`), undefined, undefined],
  ])("%s", (_label, value, limit, expected) => {
    expect(limit === undefined ? tooDeep(value) : tooDeep(value, limit)).toBe(expected);
  });

  it("十万层也只是一句说明，不抛 RangeError", () => {
    expect(tooDeep(JSON.parse(nested(100_000)))).toMatch(/^嵌套超过/);
  });
});

describe("读：太深的一行拒收，说出文件与行号，文件不动", () => {
  it.each([
    ["工具参数嵌套一万层", callLine(nested(10_000))],
    ["该是对象的 message 是一万层的数组", `{"type":"message","id":"e2","parentId":"e1","message":${"[".repeat(10_000)}${"]".repeat(10_000)}}`],
  ])("%s", (_label, line) => {
    const file = write("deep.jsonl", [FIRST, line]);
    const before = fs.readFileSync(file);
    expect(() => Session.open(file)).toThrow(`会话文件 deep.jsonl 第 2 行`);
    expect(() => Session.open(file)).toThrow(`嵌套超过 ${MAX_ENTRY_DEPTH} 层`);
    expect(fs.readFileSync(file).equals(before)).toBe(true);
  });

  it("工具参数正好 MAX_JSON_DEPTH 层（模型服务送来的上限）：照常打开", () => {
    const file = write("ok.jsonl", [FIRST, callLine(nested(MAX_JSON_DEPTH))]);
    const session = Session.open(file);
    expect(session.messages().map((message) => message.role)).toEqual(["user", "assistant"]);
    session.close();
  });
});

describe("写：守同一个上限，不写一行下次打不开的", () => {
  const call = (argsJson: string): Message => ({
    role: "assistant",
    stopReason: "toolUse",
    content: [{ type: "toolCall", id: "c1", name: "calc", arguments: JSON.parse(argsJson) as Record<string, unknown> }],
  });

  /** 新建会话，写下一句用户消息和一个参数 argsLevels 层的工具调用；返回文件与 [会话] 提示。 */
  function appendCall(name: string, argsLevels: number): { file: string; reported: string[] } {
    const file = path.join(dir, name);
    const session = Session.create(file);
    const reported: string[] = [];
    session.warn = (line) => reported.push(line);
    session.append({ role: "user", content: "算一下" });
    session.append(call(nested(argsLevels)));
    session.close();
    return { file, reported };
  }

  it("参数 MAX_JSON_DEPTH 层：写进去，下次照常打开", () => {
    const { file, reported } = appendCall("round.jsonl", MAX_JSON_DEPTH);
    expect(reported).toEqual([]);
    const again = Session.open(file);
    expect(again.messages()).toHaveLength(2);
    again.close();
    expect(fs.readFileSync(file, "utf8").trimEnd().split("\n")).toHaveLength(2);
  });

  it("再深一层：一行 [会话未保存] 说出原因，已经写下的不丢，文件照常打开", () => {
    const { file, reported } = appendCall("deeper.jsonl", MAX_JSON_DEPTH + 1);
    expect(reported).toEqual([expect.stringMatching(new RegExp(`^\\[会话未保存\\] deeper\\.jsonl：这条消息嵌套超过 ${MAX_ENTRY_DEPTH} 层（真实的数据不会这么深），写进去下次就打不开，拒绝写入`))]);
    expect(fs.readFileSync(file, "utf8")).toBe(`${FIRST}\n`);
    Session.open(file).close();
  });
});
