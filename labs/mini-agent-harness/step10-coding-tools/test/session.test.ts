import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

import { Session } from "../src/session.js";
import type { HarnessEvent, Message } from "../src/types.js";

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "harness-session-"));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true, maxRetries: 10 }));

const user = (content: string): Message => ({ role: "user", content });
const lines = (file: string): string[] => fs.readFileSync(file, "utf8").trimEnd().split("\n");

describe("Session", () => {
  it("一条消息一行，id 为 e1、e2……，parentId 指向上一条", () => {
    const file = path.join(dir, "a.jsonl");
    const session = Session.create(file);
    session.append(user("一"));
    session.append(user("二"));
    expect(lines(file).map((line) => JSON.parse(line))).toEqual([
      { type: "message", id: "e1", parentId: null, message: user("一") },
      { type: "message", id: "e2", parentId: "e1", message: user("二") },
    ]);
  });

  it("恢复：沿 parentId 还原消息；继续追加时编号接着往下排", () => {
    const file = path.join(dir, "a.jsonl");
    const first = Session.create(file);
    first.append(user("一"));
    first.append(user("二"));
    const resumed = Session.open(file);
    expect(resumed.messages()).toEqual([user("一"), user("二")]);
    resumed.append(user("三"));
    expect(JSON.parse(lines(file)[2]!)).toMatchObject({ id: "e3", parentId: "e2" });
  });

  it("恢复只走当前分支：不在 parentId 链上的条目不会出现", () => {
    const file = path.join(dir, "branch.jsonl");
    const entries = [
      { type: "message", id: "e1", parentId: null, message: user("根") },
      { type: "message", id: "e2", parentId: "e1", message: user("旧分支") },
      { type: "message", id: "e3", parentId: "e1", message: user("新分支") },
    ];
    fs.writeFileSync(file, entries.map((e) => JSON.stringify(e)).join("\n") + "\n");
    expect(Session.open(file).messages()).toEqual([user("根"), user("新分支")]);
  });

  it("最后一行写到一半：报告并跳过，同时截掉它，之后追加的行仍然完好", () => {
    const file = path.join(dir, "crash.jsonl");
    const session = Session.create(file);
    session.append(user("一"));
    fs.appendFileSync(file, '{"type":"message","id":"e2","par');
    const warnings: string[] = [];
    const resumed = Session.open(file, warnings);
    expect(warnings).toEqual(["会话文件 crash.jsonl 第 2 行不完整（上次可能写到一半时退出），已跳过；这半行（32 字节）原样存进了 crash.jsonl.bak"]);
    expect(resumed.messages()).toEqual([user("一")]);
    resumed.append(user("二"));
    expect(Session.open(file).messages()).toEqual([user("一"), user("二")]);
  });

  it("中间某行坏了：报错，指出文件名和行号", () => {
    const file = path.join(dir, "bad.jsonl");
    const session = Session.create(file);
    session.append(user("一"));
    session.append(user("二"));
    const [a, b] = lines(file);
    fs.writeFileSync(file, `${a}\n{坏掉的行\n${b}\n`);
    expect(() => Session.open(file)).toThrow(/^会话文件 bad\.jsonl 第 2 行不是合法的 JSON/);
  });

  it("不认识的条目类型：警告并跳过", () => {
    const file = path.join(dir, "future.jsonl");
    fs.writeFileSync(file, [
      JSON.stringify({ type: "message", id: "e1", parentId: null, message: user("一") }),
      JSON.stringify({ type: "label", id: "e2", parentId: "e1", label: "书签" }),
    ].join("\n") + "\n");
    const warnings: string[] = [];
    expect(Session.open(file, warnings).messages()).toEqual([user("一")]);
    expect(warnings).toEqual(['会话文件 future.jsonl 第 2 行：不认识的条目类型 "label"，已跳过']);
  });

  it("parentId 指向不存在的条目：报错", () => {
    const file = path.join(dir, "orphan.jsonl");
    fs.writeFileSync(file, JSON.stringify({ type: "message", id: "e2", parentId: "e1", message: user("孤儿") }) + "\n");
    expect(() => Session.open(file)).toThrow("找不到条目 e1");
  });

  it("record：message 事件落盘，其他事件原样通过", async () => {
    const file = path.join(dir, "rec.jsonl");
    const session = Session.create(file);
    const events: HarnessEvent[] = [
      { type: "turn_start", turn: 1 },
      { type: "message", message: { role: "assistant", content: [{ type: "text", text: "这是" }], stopReason: "aborted" } },
      { type: "abort" },
    ];
    async function* source(): AsyncGenerator<HarnessEvent> {
      yield* events;
    }
    const passed: HarnessEvent[] = [];
    for await (const event of session.record(source())) passed.push(event);
    expect(passed).toEqual(events);
    expect(Session.open(file).messages()).toEqual([events[1]!.type === "message" ? events[1]!.message : undefined]);
  });

  it("latestFile：最近写过的会话文件", async () => {
    expect(Session.latestFile(path.join(dir, "none"))).toBeUndefined();
    const old = path.join(dir, "old.jsonl");
    const fresh = path.join(dir, "fresh.jsonl");
    Session.create(fresh).append(user("新"));
    Session.create(old).append(user("旧"));
    const past = new Date(Date.now() - 60_000);
    fs.utimesSync(old, past, past);
    expect(Session.latestFile(dir)).toBe(fresh);
  });

  it("不认识的条目留在链上：指向它的消息照常恢复，新条目的编号不会与它重复", () => {
    const file = path.join(dir, "mixed.jsonl");
    fs.writeFileSync(file, [
      JSON.stringify({ type: "message", id: "e1", parentId: null, message: user("一") }),
      JSON.stringify({ type: "label", id: "e2", parentId: "e1", label: "书签" }),
      JSON.stringify({ type: "message", id: "e3", parentId: "e2", message: user("三") }),
    ].join("\n") + "\n");
    const session = Session.open(file);
    expect(session.messages()).toEqual([user("一"), user("三")]);
    session.append(user("四"));
    expect(JSON.parse(lines(file)[3]!)).toMatchObject({ id: "e4", parentId: "e3" });
  });

  it("最后一行完整但少了换行：补上换行，之后的追加不会接在同一行", () => {
    const file = path.join(dir, "nonl.jsonl");
    fs.writeFileSync(file, JSON.stringify({ type: "message", id: "e1", parentId: null, message: user("一") }));
    const session = Session.open(file);
    session.append(user("二"));
    expect(Session.open(file).messages()).toEqual([user("一"), user("二")]);
  });

  it("新会话在第一条消息时才创建文件；同名旧文件被替换", () => {
    const file = path.join(dir, "sub", "lazy.jsonl");
    const session = Session.create(file);
    expect(fs.existsSync(file)).toBe(false);
    session.append(user("一"));
    expect(lines(file)).toHaveLength(1);
    Session.create(file);
    expect(fs.existsSync(file)).toBe(false);
  });
});
