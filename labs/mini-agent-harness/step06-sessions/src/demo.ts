/**
 * 非交互演示：npm run demo。它的输出会与 expected-output.txt 逐字比对。
 *
 *   第一次运行：一段带工具调用的对话，每条消息一产生就追加进 .sessions/demo.jsonl；
 *   第二次运行：另起一个全新的进程（真正的 npm start），用 --session 打开同一个文件，
 *   问一句只有记得历史才答得上的话。
 */

import { spawnSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

import { runAgentLoop } from "./agent-loop.js";
import { createFakeModel } from "./fake-model.js";
import { renderEvents } from "./render.js";
import { Session, type SessionEntry } from "./session.js";
import { createBuiltinTools } from "./tools/index.js";
import type { Context } from "./types.js";

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
// 会话文件默认写在本目录的 .sessions/；测试把 DEMO_SESSIONS_DIR 指向各自的临时目录，几份测试同时跑也不会抢同一个文件
const sessionsDir = process.env.DEMO_SESSIONS_DIR ?? path.join(projectRoot, ".sessions");
const sessionFile = path.join(sessionsDir, "demo.jsonl");

const tools = createBuiltinTools();
const session = Session.create(sessionFile);
const context: Context = { messages: [] };
const streamFn = createFakeModel({ delayMs: 0 });

/** 用户说一句话，然后跑一次完整的 Agent 循环；消息经过 session.record 时落盘。 */
async function say(text: string): Promise<void> {
  console.log(`你> ${text}`);
  const userMessage = { role: "user" as const, content: text };
  context.messages.push(userMessage);
  session.append(userMessage);
  const events = runAgentLoop({ streamFn, context, tools, toolContext: { cwd: projectRoot } });
  await renderEvents(session.record(events));
}

console.log("Mini Agent Harness · step06 sessions（demo）");
console.log("\n=== 第一次运行：一段对话，每条消息一产生就落盘 ===\n");
await say("我叫小明");
await say("帮我算 17*38");

// 把会话文件逐行摊开：每行一个条目，parentId 指向上一条，串成一条链。
const entries = fs
  .readFileSync(sessionFile, "utf8")
  .trimEnd()
  .split("\n")
  .map((line) => JSON.parse(line) as SessionEntry);
console.log(`\n会话文件 .sessions/demo.jsonl 现在有 ${entries.length} 行：`);
for (const entry of entries) {
  console.log(`  ${entry.id}  parentId=${String(entry.parentId).padEnd(4)}  ${entry.message.role}`);
}

// 另起一个进程：它对上面这段对话一无所知，只能从文件里恢复。先放开锁，同一时刻只许一个进程写这个文件。
session.close();
console.log("\n=== 第二次运行：一个全新的进程用 --session 恢复它 ===\n");
console.log("$ npm start -- --session .sessions/demo.jsonl   （输入：我叫什么）");
const tsxCli = createRequire(import.meta.url).resolve("tsx/cli");
const second = spawnSync(process.execPath, [tsxCli, "src/main.ts", "--session", sessionFile], {
  cwd: projectRoot,
  input: "我叫什么\n",
  encoding: "utf8",
});
process.stdout.write(second.stdout);
if (second.status !== 0) {
  console.error(`第二次运行失败（退出码 ${second.status}）：${second.stderr}`);
  process.exit(1);
}
