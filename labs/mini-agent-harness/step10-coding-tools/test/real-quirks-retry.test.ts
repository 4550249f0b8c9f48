/**
 * issue 13 在两层重试上的后果：这些失败是确定性的，一次都不许重发。
 *   - 跨源重定向：HTTP 层不重试，回合层也不重试，目标主机从头到尾收不到一个请求；
 *   - 200 却不是事件流：回合层不重试；
 *   - 工具参数写到一半撞上 max_tokens：以 length 收场，从不重试，半截的调用不执行。
 */
import { describe, expect, it } from "vitest";

import { createAnthropicStream } from "../src/providers/anthropic-messages.js";
import { createOpenAIStream } from "../src/providers/openai-completions.js";
import { runWithRetry } from "../src/retry/turn-retry.js";
import { createBuiltinTools } from "../src/tools/index.js";
import type { HarnessEvent, StreamFn } from "../src/types.js";
import { CALC, KEY } from "./helpers/providers.js";
import { rawServers, sendSse } from "./helpers/raw-server.js";

const serve = rawServers();

async function runOnce(streamFn: StreamFn): Promise<HarnessEvent[]> {
  const events: HarnessEvent[] = [];
  const context = { messages: [{ role: "user" as const, content: "算 1+2" }], tools: [CALC] };
  const options = { streamFn, context, tools: createBuiltinTools(), toolContext: { cwd: process.cwd() }, baseDelayMs: 1 };
  for await (const event of runWithRetry(options)) events.push(event);
  return events;
}

const retried = (events: HarnessEvent[]) => events.filter((e) => e.type === "auto_retry_start").length;

describe("确定性的失败不重试", () => {
  it("跨源重定向：一共只发一个请求，密钥从未到达目标主机", async () => {
    const elsewhere = await serve((_req, res) => res.end());
    const configured = await serve((_req, res) => {
      res.writeHead(308, { location: `${elsewhere.origin}/v1/messages` });
      res.end();
    });
    const events = await runOnce(createAnthropicStream({ baseUrl: configured.origin, apiKey: KEY, model: "m" }));
    expect(configured.requests).toHaveLength(1);
    expect(elsewhere.requests).toEqual([]);
    expect(retried(events)).toBe(0);
  });

  it("200 的 HTML：回合层不重试", async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "text/html" });
      res.end("<html>503 captive portal</html>");
    });
    const events = await runOnce(createOpenAIStream({ baseUrl: server.origin, apiKey: KEY, model: "m" }));
    expect(server.requests).toHaveLength(1);
    expect(retried(events)).toBe(0);
  });

  it("max_tokens 截在工具参数中间：length，不重试，不执行", async () => {
    const server = await serve((_req, res) =>
      sendSse(res, [
        { data: { choices: [{ index: 0, delta: { content: "我来算。" }, finish_reason: null }] } },
        { data: { choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: "c1", function: { name: "calc", arguments: '{"expression":"Unterminated' } }] }, finish_reason: null }] } },
        { data: { choices: [{ index: 0, delta: {}, finish_reason: "length" }] } },
        { data: "[DONE]" },
      ]),
    );
    const events = await runOnce(createOpenAIStream({ baseUrl: server.origin, apiKey: KEY, model: "m" }));
    expect(server.requests).toHaveLength(1);
    expect(retried(events)).toBe(0);
    expect(events.some((e) => e.type === "tool_call")).toBe(false);
    const last = events.filter((e) => e.type === "message").at(-1);
    expect(last).toMatchObject({ message: { role: "assistant", stopReason: "length", content: [{ type: "text", text: "我来算。" }] } });
  });
});
