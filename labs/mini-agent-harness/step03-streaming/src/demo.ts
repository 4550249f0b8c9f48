/**
 * 非交互演示：npm run demo。它的输出会与 expected-output.txt 逐字比对。
 *
 *   1. 流式回复：文本一个 token 一个 token 地到达，屏幕上边收边显示；
 *   2. 中途失败：模型吐了半句后出错——错误是流里的最后一个事件，不是异常；
 *   3. 失败之后对话照常继续，而且模型还记得更早的话（它每次都看整个上下文）。
 *
 * 每个 token 之间隔 20 毫秒，看得出「流」的效果；打印出来的内容与快慢无关，逐字比对也稳定。
 */

import { createFakeModel } from "./fake-model.js";
import { renderStream } from "./render.js";
import type { Context, StreamEvent } from "./types.js";

const context: Context = { messages: [] };
const streamFn = createFakeModel({ delayMs: 20 });
const counts = { text_delta: 0, done: 0 };

/** 把流原样转交出去，顺便数一数各种事件各有几个。 */
async function* counted(stream: AsyncIterable<StreamEvent>): AsyncGenerator<StreamEvent> {
  for await (const event of stream) {
    counts[event.type] += 1;
    yield event;
  }
}

/** 用户说一句话，模型流式回复，回复进上下文。 */
async function say(text: string): Promise<void> {
  console.log(`\n你> ${text}`);
  context.messages.push({ role: "user", content: text });
  counts.text_delta = 0;
  counts.done = 0;
  const reply = await renderStream(counted(streamFn(context)));
  context.messages.push(reply);
  console.log(`（这次回复由 ${counts.text_delta} 个 text_delta 和 ${counts.done} 个 done 事件组成，stopReason：${reply.stopReason}）`);
}

console.log("Mini Agent Harness · step03 streaming（demo）");
await say("我叫小明");
await say("说个长的");
await say("出个错");
await say("我叫什么");
console.log(`\n上下文里共 ${context.messages.length} 条消息，出错的那条也在其中：错误是数据，不是异常。`);
