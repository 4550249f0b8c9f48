/**
 * 非交互演示：npm run demo。它的输出会与 expected-output.txt 逐字比对。
 *
 *   1. 一次工具调用：模型要求 calc 计算，结果回到上下文，第 2 轮模型据此作答；
 *   2. 模型写了一个不合法的表达式：calc 的解析器拒绝它，错误结果同样回到上下文；
 *   3. 轮数上限：maxTurns 为 1 时，工具跑完后循环就停下，模型没机会作答。
 */

import { runAgentLoop } from "./agent-loop.js";
import { createFakeModel } from "./fake-model.js";
import { renderEvents } from "./render.js";
import { BUILTIN_TOOLS } from "./tools/index.js";
import type { Context } from "./types.js";

const context: Context = { messages: [] };
const streamFn = createFakeModel({ delayMs: 0 });

/** 用户说一句话，然后跑一次完整的 Agent 循环。 */
async function say(text: string, maxTurns?: number): Promise<void> {
  console.log(`\n你> ${text}`);
  context.messages.push({ role: "user", content: text });
  await renderEvents(runAgentLoop({ streamFn, context, tools: BUILTIN_TOOLS, maxTurns }));
}

console.log("Mini Agent Harness · step04 agent-loop（demo）");
console.log(`可用工具：${BUILTIN_TOOLS.map((tool) => tool.name).join("、")}`);

await say("帮我算 17*38");
// calc 不用 eval：process.exit() 只是一串解析不了的字符，而不是一段会被执行的代码。
await say("帮我算 process.exit()");
await say("帮我算 (1+2)*3", 1);

// 上下文里现在有哪些消息：每一轮的助手回复与工具结果都在。
console.log(`\n上下文里共 ${context.messages.length} 条消息：${context.messages.map((m) => m.role).join(" → ")}`);
