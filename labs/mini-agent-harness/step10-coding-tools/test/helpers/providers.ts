import { expect } from "vitest";
import type { AssistantMessage, Context, StreamEvent, StreamFn, StreamOptions, ToolSpec } from "../../src/types.js";

/** 测试里用的「密钥」：任何 errorMessage、任何 done 消息里都不许出现它。 */
export const KEY = "sk-test-SECRET-0123456789";

export const CALC: ToolSpec = {
  name: "calc",
  description: "计算一个算术表达式",
  parameters: { type: "object", properties: { expression: { type: "string" } }, required: ["expression"] },
};

export const HELLO: Context = { systemPrompt: "你是一个测试助手。", messages: [{ role: "user", content: "你好" }] };

export interface Collected {
  deltas: string[];
  message: AssistantMessage;
}

/**
 * 跑完一个流。顺带检查契约：不抛异常、恰好一个 done 且在最后、
 * 文本增量拼起来等于消息里的文本、密钥不出现在消息里。
 * onDelta 可以在收到某个增量时做点什么（例如取消）。
 */
export async function collect(
  streamFn: StreamFn,
  context: Context = HELLO,
  options?: StreamOptions,
  onDelta?: (delta: string, index: number) => void,
): Promise<Collected> {
  const events: StreamEvent[] = [];
  const deltas: string[] = [];
  for await (const event of streamFn(context, options)) {
    events.push(event);
    if (event.type === "text_delta") {
      deltas.push(event.delta);
      onDelta?.(event.delta, deltas.length - 1);
    }
  }
  const dones = events.filter((event) => event.type === "done");
  expect(dones).toHaveLength(1);
  const last = events.at(-1);
  if (last?.type !== "done") throw new Error("最后一个事件不是 done");
  const message = last.message;
  const text = message.content.map((block) => (block.type === "text" ? block.text : "")).join("");
  expect(text).toBe(deltas.join(""));
  expect(JSON.stringify(message)).not.toContain(KEY);
  if (message.stopReason === "error") expect(message.errorMessage).toBeTruthy();
  return { deltas, message };
}

export function textOf(message: AssistantMessage): string {
  return message.content.map((block) => (block.type === "text" ? block.text : "")).join("");
}

/**
 * 真正的 fetch，外面套一层计数：数一数响应体被分成了多少块读到。
 * 用来证明「逐字节发送」确实让解析器逐字节地收到了数据。
 */
export function countingFetch(): { fetch: typeof fetch; reads: () => number } {
  let reads = 0;
  const wrapped: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    if (!response.body) return response;
    const reader = response.body.getReader();
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const { done, value } = await reader.read();
        if (done) controller.close();
        else {
          reads++;
          controller.enqueue(value);
        }
      },
      cancel: (reason) => reader.cancel(reason),
    });
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
  return { fetch: wrapped, reads: () => reads };
}
