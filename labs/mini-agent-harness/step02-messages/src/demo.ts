/**
 * 非交互演示：npm run demo。它的输出会与 expected-output.txt 逐字比对。
 *
 * 同一句「我叫什么」问两次：第一次只交出这一句，模型答不上来；
 * 第二次交出整段历史，模型就「记得」了。模型本身没有记忆，记忆就是上下文。
 */

import { createFakeModel } from "./fake-model.js";
import type { Context, Message } from "./types.js";

const complete = createFakeModel();

/** 把一条助手消息的文本拼起来。 */
const textOf = (message: Message): string =>
  message.role === "user" ? message.content : message.content.map((part) => part.text).join("");

console.log("Mini Agent Harness · step02 messages（demo）");

// ── 对照一：每次只交出最后一句话 ─────────────────────────────────
console.log("\n=== 只交出最后一句话 ===\n");
for (const text of ["我叫小明", "我叫什么"]) {
  const lonely: Context = { messages: [{ role: "user", content: text }] };
  console.log(`你> ${text}`);
  console.log(`助手> ${textOf(complete(lonely))}`);
}

// ── 对照二：每次交出整个上下文 ───────────────────────────────────
console.log("\n=== 每次交出整个上下文 ===\n");
const context: Context = { messages: [] };
for (const text of ["我叫小明", "今天天气不错", "我叫什么"]) {
  context.messages.push({ role: "user", content: text });
  const reply = complete(context);
  context.messages.push(reply);
  console.log(`你> ${text}`);
  console.log(`助手> ${textOf(reply)}`);
}

console.log(`\n最后一次调用时，模型看到的上下文（${context.messages.length - 1} 条消息）：`);
for (const message of context.messages.slice(0, -1)) console.log(`  ${message.role.padEnd(9)} ${textOf(message)}`);
