// 离线观察 Pi 1.6.0 的取消路径：真的 Agent（@earendil-works/pi-agent-core），假的 StreamFn 与工具。
// 不联网、不需要 API Key。用法（在仓库根目录）：
//   node research/examples/pi-agent-abort.mjs              # 工具串行执行
//   node research/examples/pi-agent-abort.mjs --parallel   # 工具并行执行（Agent 的默认）
// 场景：模型一次发出两个工具调用；第一个工具开跑 30 ms 后调用 agent.abort()（相当于按下 ESC）。
// 输出里没有计时数字，重跑结果相同。
import { Agent } from "@earendil-works/pi-agent-core";
import { AssistantMessageEventStream } from "@earendil-works/pi-ai";
// transformMessages 不在包根导出，走 exports 里的 ./api/* 子路径
import { transformMessages } from "@earendil-works/pi-ai/api/transform-messages";

const model = {
  id: "fake-model",
  name: "fake",
  api: "fake-api",
  provider: "fake",
  baseUrl: "",
  reasoning: false,
  input: ["text"],
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  contextWindow: 100_000,
  maxTokens: 1_000,
};
const usage = () => ({
  input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
});
function assistant(stopReason, content, errorMessage) {
  return {
    role: "assistant", content, api: model.api, provider: model.provider, model: model.id,
    usage: usage(), stopReason, ...(errorMessage ? { errorMessage } : {}), timestamp: Date.now(),
  };
}

// 假 StreamFn：遵守「不抛异常，失败编码成最后一条消息」的契约。
// 第 1 次调用回两个工具调用；signal 已经取消时，像真实适配器那样回一条 aborted 消息。
let calls = 0;
const streamFn = (_model, _context, options) => {
  calls++;
  const stream = new AssistantMessageEventStream();
  queueMicrotask(() => {
    if (options?.signal?.aborted) {
      const msg = assistant("aborted", [], "Request was aborted");
      stream.push({ type: "error", reason: "aborted", error: msg });
    } else {
      const msg = assistant("toolUse", [
        { type: "toolCall", id: "call_1", name: "slow", arguments: { label: "第一个" } },
        { type: "toolCall", id: "call_2", name: "slow", arguments: { label: "第二个" } },
      ]);
      stream.push({ type: "start", partial: msg });
      stream.push({ type: "done", reason: "toolUse", message: msg });
    }
    stream.end();
  });
  return stream;
};

// 一个尊重 signal 的慢工具：最多等 10 秒，取消时立刻以异常结束
const slow = {
  name: "slow",
  label: "slow",
  description: "等一会儿",
  parameters: { type: "object", properties: { label: { type: "string" } }, required: ["label"] },
  execute: (_id, params, signal) =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => resolve({ content: [{ type: "text", text: `${params.label} 完成` }], details: {} }), 10_000);
      signal?.addEventListener("abort", () => { clearTimeout(timer); reject(new Error("aborted")); }, { once: true });
    }),
};

const toolExecution = process.argv.includes("--parallel") ? "parallel" : "sequential";
console.log(`工具执行方式：${toolExecution}`);
const agent = new Agent({
  streamFn,
  toolExecution,
  initialState: { model, systemPrompt: "demo", tools: [slow] },
});

agent.subscribe((event) => {
  if (event.type === "tool_execution_start" && event.toolCallId === "call_1") {
    setTimeout(() => agent.abort(), 30); // 第一个工具开跑 30 ms 后按下「ESC」
  }
  const brief = {
    message_end: () => `${event.message.role}${event.message.role === "assistant" ? ` stopReason=${event.message.stopReason}` : ""}${event.message.role === "toolResult" ? ` ${event.message.toolCallId} isError=${event.message.isError} 「${event.message.content[0]?.text}」` : ""}`,
    tool_execution_end: () => `${event.toolCallId} isError=${event.isError}`,
  }[event.type];
  console.log(`事件 ${event.type}${brief ? ` ${brief()}` : ""}`);
});

await agent.prompt("请调用两次 slow");
console.log(`\nStreamFn 被调用了 ${calls} 次；agent.signal 在空闲时是 ${agent.signal}`);

console.log("\n== 运行时历史 agent.state.messages ==");
for (const m of agent.state.messages) {
  console.log(`${m.role}${m.stopReason ? ` stopReason=${m.stopReason}` : ""}${m.toolCallId ? ` ${m.toolCallId}` : ""}`);
}

console.log("\n== 下一次请求前 transformMessages 的结果 ==");
const next = [...agent.state.messages, { role: "user", content: [{ type: "text", text: "继续" }], timestamp: Date.now() }];
for (const m of transformMessages(next, model)) {
  console.log(`${m.role}${m.stopReason ? ` stopReason=${m.stopReason}` : ""}${m.toolCallId ? ` ${m.toolCallId}` : ""}`);
}

console.log("\n== 手工构造：工具结果缺了一条 ==");
const handmade = [
  { role: "user", content: [{ type: "text", text: "hi" }], timestamp: 0 },
  assistant("toolUse", [
    { type: "toolCall", id: "a", name: "slow", arguments: {} },
    { type: "toolCall", id: "b", name: "slow", arguments: {} },
  ]),
  { role: "toolResult", toolCallId: "a", toolName: "slow", content: [{ type: "text", text: "ok" }], isError: false, timestamp: 0 },
  assistant("aborted", [{ type: "text", text: "半句" }], "Request was aborted"),
  { role: "user", content: [{ type: "text", text: "继续" }], timestamp: 0 },
];
for (const m of transformMessages(handmade, model)) {
  const text = m.role === "toolResult" ? ` 「${m.content[0]?.text}」 isError=${m.isError}` : "";
  console.log(`${m.role}${m.stopReason ? ` stopReason=${m.stopReason}` : ""}${m.toolCallId ? ` ${m.toolCallId}` : ""}${text}`);
}
