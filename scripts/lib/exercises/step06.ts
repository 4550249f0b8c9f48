/**
 * 练习 6（第 8.4 章）：写一个会话命令 history(file)：列出当前分支上用户说过的话。
 *
 * 检查器按会话文件的格式（一行一个 {type,id,parentId,…}）在临时目录里写出几个文件，交给它。
 * 把文件里所有用户消息都列出来的写法过不了「分叉」那一项——被绕过的旧分支不在当前对话里；
 * 每行都 JSON.parse 的写法过不了「最后一行写到一半」那一项。
 */

import fs from "node:fs";
import os from "node:os";
import path from "node:path";

import { attempt, loadExport, same, show } from "./helpers.ts";
import { generatedName, type Random } from "./random.ts";
import type { Check, Exercise } from "./types.ts";

type History = (file: string) => string[] | Promise<string[]>;

const FILE = "exercises/history.ts";

const user = (id: string, parentId: string | null, content: string) => ({ type: "message", id, parentId, message: { role: "user", content } });
const assistant = (id: string, parentId: string, text: string) => ({
  type: "message",
  id,
  parentId,
  message: { role: "assistant", content: [{ type: "text", text }], stopReason: "stop" },
});

/** 一段 demo 式的对话：8 个条目，其中有一次工具调用。 */
const BASE = [
  user("e1", null, "我叫小明"),
  assistant("e2", "e1", "你好，小明！我记住了。"),
  user("e3", "e2", "帮我算 17*38"),
  { type: "message", id: "e4", parentId: "e3", message: { role: "assistant", content: [{ type: "toolCall", id: "call_1", name: "calc", arguments: { expression: "17*38" } }], stopReason: "toolUse" } },
  { type: "message", id: "e5", parentId: "e4", message: { role: "toolResult", toolCallId: "call_1", toolName: "calc", content: "646" } },
  assistant("e6", "e5", "结果是 646。"),
  user("e7", "e6", "我叫什么"),
  assistant("e8", "e7", "你叫小明。"),
];
const lines = (entries: unknown[]): string => entries.map((entry) => JSON.stringify(entry) + "\n").join("");

/**
 * 一段现造的会话：几问几答（有时带一次工具调用），条目 id 是随机的；可选从某个较早的回答处分叉，
 * 可选最后一行写到一半。返回文件内容与当前分支上用户说过的话。
 */
function randomSession(random: Random, options: { branch: boolean; torn: boolean }): { content: string; expected: string[] } {
  const entries: Array<{ id: string; parentId: string | null; [key: string]: unknown }> = [];
  const said = new Map<string, string[]>(); // 条目 id → 走到它为止用户说过的话
  let parent: string | null = null;
  const add = (entry: Record<string, unknown>, userText?: string): string => {
    const id = random.id(8);
    const before = parent === null ? [] : (said.get(parent) ?? []);
    entries.push({ ...entry, id, parentId: parent } as (typeof entries)[number]);
    said.set(id, userText === undefined ? before : [...before, userText]);
    parent = id;
    return id;
  };
  const turn = () => {
    const text = random.text(random.int(2, 8), ["cjk", "ascii", "astral"]);
    add({ type: "message", message: { role: "user", content: text } }, text);
    if (random.int(0, 2) === 0) {
      add({ type: "message", message: { role: "assistant", content: [{ type: "toolCall", id: "call_1", name: "calc", arguments: { expression: "1+1" } }], stopReason: "toolUse" } });
      add({ type: "message", message: { role: "toolResult", toolCallId: "call_1", toolName: "calc", content: "2" } });
    }
    return add({ type: "message", message: { role: "assistant", content: [{ type: "text", text: random.text(random.int(2, 6), ["cjk"]) }], stopReason: "stop" } });
  };
  const answers = Array.from({ length: random.int(2, 4) }, turn);
  if (options.branch) {
    parent = random.pick(answers.slice(0, -1));
    for (let i = random.int(1, 2); i > 0; i--) turn();
  }
  const expected = (said.get(parent ?? "") ?? []).map((text, index) => `${index + 1}. ${text}`);
  const torn = options.torn ? JSON.stringify({ type: "message", id: random.id(8), parentId: parent, message: { role: "user", content: "写到一半" } }).slice(0, random.int(10, 40)) : "";
  return { content: lines(entries) + torn, expected };
}

async function check(stepDir: string, random: Random): Promise<Check[]> {
  const loaded = await loadExport<History>(stepDir, FILE, "history", "function");
  if (loaded.value === undefined) return [loaded.check];
  const history = loaded.value;
  const checks: Check[] = [loaded.check];
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "exercise-06-"));
  try {
    const cases: Array<[string, string, string[]]> = [
      ["一条直线的对话：只列用户的话，工具结果和回答不算", lines(BASE), ["1. 我叫小明", "2. 帮我算 17*38", "3. 我叫什么"]],
      ["分叉：最后一条接在 e2 后面，旧分支 e3–e8 不在当前对话里", lines([...BASE, user("e9", "e2", "我叫小红"), assistant("e10", "e9", "你好，小红！我记住了。")]), ["1. 我叫小明", "2. 我叫小红"]],
      ["最后一行写到一半（上次崩溃）：跳过它，照常列出", lines(BASE) + '{"type":"message","id":"e9","par', ["1. 我叫小明", "2. 帮我算 17*38", "3. 我叫什么"]],
      ["最后一条是不认识的条目类型（书签）：它仍在链上，照常列出", lines([...BASE, { type: "label", id: "e9", parentId: "e8", label: "书签" }]), ["1. 我叫小明", "2. 帮我算 17*38", "3. 我叫什么"]],
    ];
    const shapes = [
      { why: "一条直线、随机的 id 与话", branch: false, torn: false },
      { why: "从较早的回答处分叉，最后一行写到一半", branch: true, torn: true },
    ];
    for (const [index, shape] of shapes.entries()) {
      const session = randomSession(random, shape);
      const count = session.content.split("\n").filter((line) => line !== "").length;
      cases.push([`${generatedName(index + 1, shapes.length, shape.why)}：${count} 行，第一句是 ${show(session.expected[0]?.replace(/^1\. /, ""))}`, session.content, session.expected]);
    }
    for (const [index, [name, content, expected]] of cases.entries()) {
      const file = path.join(dir, `case-${index + 1}.jsonl`);
      fs.writeFileSync(file, content);
      checks.push(...(await attempt(name, async () => same(name, await history(file), expected))));
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true, maxRetries: 10 });
  }
  return checks;
}

export const exercise06: Exercise = {
  id: 6,
  step: "step06-sessions",
  chapter: "8.4",
  title: "写一个会话命令 history：列出当前分支上用户说过的话",
  file: FILE,
  hints: [
    "会话文件是日记本，不是存档点：当前对话是「从最后一条沿 parentId 往回走」走出来的那条链，不是文件里的全部行。写到一半的最后一行要跳过，而不是让整个命令失败。",
    "src/session.ts 的 Session.open(file) 已经做了这两件事（readEntries 与 walkBack），messages() 给出链上的消息；也可以自己按行解析、自己往回走。新文件 exercises/history.ts 导出 history(file)。",
    "export function history(file: string): string[] {\n  const messages = /* Session.open(file).messages()，或者：逐行 JSON.parse（最后一行坏了就跳过）→ 从最后一个条目沿 parentId 往回走 → 反转 */;\n  return messages\n    .filter((message) => message.role === \"user\")\n    .map((message, index) => `${index + 1}. ${message.content}`);\n}",
  ],
  check,
};
