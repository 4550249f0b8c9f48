/**
 * 交互式命令行入口：npm start。
 *
 * Ctrl+D 或 /exit：结束输入并退出。
 */

import readline from "node:readline";
import { createFakeModel } from "./fake-model.js";
import type { Context } from "./types.js";

// ── 命令行参数：这一步还没有任何参数 ──────────────────────────────
const args = process.argv.slice(2);
if (args.length > 0) usageError(`不认识的参数：${args[0]}`);

// ── 上下文与模型 ───────────────────────────────────────────────
// 整段对话都放在 context 里，每次调用模型都把它整个交出去。
const context: Context = { messages: [] };
const complete = createFakeModel();

console.log("Mini Agent Harness · step02 messages");
console.log("试试：我叫小明，然后问：我叫什么。Ctrl+D 或 /exit 退出。\n");

// readline 的异步迭代器会缓存读到的行：管道一次喂进多行也不会丢。
const rl = readline.createInterface({ input: process.stdin, output: process.stdout, prompt: "你> " });
const lines = rl[Symbol.asyncIterator]();
// 输入可能先于对话结束（Ctrl+D、管道读完）：readline 随即关闭，之后不能再调用 rl.prompt()。
let inputEnded = false;
rl.on("close", () => (inputEnded = true));

/** 显示提示符并读一行。 */
async function ask(): Promise<string | undefined> {
  if (inputEnded) process.stdout.write(rl.getPrompt()); else rl.prompt();
  const next = await lines.next();
  return next.done ? undefined : next.value; // Ctrl+D：输入结束，返回 undefined
}

// ── 主循环：读一句，交给模型，再读下一句 ──────────────────────────
while (true) {
  const input = await ask();
  // undefined 表示 Ctrl+D：跳出循环，正常退出。
  if (input === undefined) break;
  // 管道输入不会回显，补打一遍，输出才读得懂。
  if (!process.stdin.isTTY) console.log(input);
  const text = input.trim();
  if (text === "") continue;
  if (text === "/exit") break;

  context.messages.push({ role: "user", content: text });
  const reply = complete(context);
  context.messages.push(reply);
  console.log(`助手> ${reply.content.map((part) => part.text).join("")}\n`);
}
console.log("\n再见。");
rl.close();

// ── 辅助函数 ───────────────────────────────────────────────────

/** 参数不对：说明原因和用法，以退出码 2 结束（命令行工具的惯例）。 */
function usageError(reason: string): never {
  console.error(`${reason}\n用法：npm start`);
  process.exit(2);
}
