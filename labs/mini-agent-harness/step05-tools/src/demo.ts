/**
 * 非交互演示：npm run demo。它的输出会与 expected-output.txt 逐字比对。
 *
 * 一个工具注册表，五种结果：正常计算、读到项目里的文件、读项目外的文件被拒绝、
 * 调用一个没有注册的工具、工具执行时出错。后四种都是「错误结果」，
 * 它们被回填给模型，循环照常往下走——没有一种会让程序崩溃。
 */

import path from "node:path";
import { fileURLToPath } from "node:url";
import { runAgentLoop } from "./agent-loop.js";
import { createFakeModel } from "./fake-model.js";
import { renderEvents } from "./render.js";
import { createBuiltinTools } from "./tools/index.js";
import type { Context } from "./types.js";

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const tools = createBuiltinTools();
const context: Context = { messages: [] };
const streamFn = createFakeModel({ delayMs: 0 });

/** 用户说一句话，然后跑一次完整的 Agent 循环。 */
async function say(text: string): Promise<void> {
  console.log(`\n你> ${text}`);
  context.messages.push({ role: "user", content: text });
  await renderEvents(runAgentLoop({ streamFn, context, tools, toolContext: { cwd: projectRoot } }));
}

console.log("Mini Agent Harness · step05 tools（demo）");
console.log(`可用工具：${tools.names().join("、")}`);

await say("帮我算 (1+2)*3.5");
await say("读一下 demo-files/hello.txt");
// 项目目录之外：read_file 在读之前就拒绝了，错误结果里只有模型给的路径。
await say("读一下 ../package.json");
// upper 不在注册表里（step07 会由扩展注册它）：得到「未注册的工具」错误结果。
await say("把 mini agent harness 转成大写");
// calc 抛出异常：注册表把它变成错误结果。
await say("帮我算 1/0");
