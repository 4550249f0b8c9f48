/**
 * issue 13 给服务器加的场景：思考模型（两种协议）与它的协议检查、重定向、200 却不是事件流。
 * 直接用 fetch 看原样输出；步骤里的客户端怎样消费它们，由 step08、step09 的测试负责。
 */
import { afterEach, describe, expect, it } from "vitest";
import { signatureOf, startProviderServer, type ProviderServer, type Script } from "../src/index.js";

let server: ProviderServer | undefined;
afterEach(async () => {
  await server?.close();
});

async function start(script: Script): Promise<ProviderServer> {
  server = await startProviderServer(script);
  return server;
}

async function post(path: string, body: unknown): Promise<{ status: number; text: string; headers: Headers }> {
  const response = await fetch(`${server?.url}${path}`, { method: "POST", body: JSON.stringify(body), redirect: "manual" });
  return { status: response.status, text: await response.text(), headers: response.headers };
}

const dataOf = (stream: string): Array<Record<string, unknown>> =>
  stream
    .split("\n\n")
    .map((event) => event.split("\n").find((line) => line.startsWith("data: {")))
    .filter((line): line is string => line !== undefined)
    .map((line) => JSON.parse(line.slice(6)) as Record<string, unknown>);

describe("思考模型", () => {
  it("OpenAI 协议：推理以 DeepSeek 的 reasoning_content 增量先于回答发出", async () => {
    await start([{ thinking: "先想想", text: "好" }]);
    const deltas = dataOf((await post("/v1/chat/completions", { messages: [] })).text).map(
      (chunk) => (chunk.choices as Array<{ delta: Record<string, unknown> }>)[0]?.delta,
    );
    expect(deltas.slice(1, 4)).toEqual([{ content: null, reasoning_content: "先想" }, { content: null, reasoning_content: "想" }, { content: "好" }]);
  });

  it("OpenAI 协议：带着推理调了工具，下一轮那条助手消息不带 reasoning_content 就回 DeepSeek 原样的 400；带了（空串也算）才放行", async () => {
    await start([{ thinking: "要用 calc", toolCalls: [{ id: "call_1", name: "calc", arguments: { expression: "1+2" } }] }, { text: "等于 3" }]);
    await post("/v1/chat/completions", { messages: [{ role: "user", content: "算 1+2" }] });
    const call = { id: "call_1", type: "function", function: { name: "calc", arguments: '{"expression":"1+2"}' } };
    const second = (assistant: Record<string, unknown>) =>
      post("/v1/chat/completions", {
        messages: [{ role: "user", content: "算 1+2" }, { role: "assistant", content: null, tool_calls: [call], ...assistant }, { role: "tool", tool_call_id: "call_1", content: "3" }],
      });
    const missing = await second({});
    expect(missing.status).toBe(400);
    expect(JSON.parse(missing.text)).toEqual({
      error: { message: "The `reasoning_content` in the thinking mode must be passed back to the API.", type: "invalid_request_error", param: null, code: "invalid_request_error" },
    });
    expect((await second({ reasoning_content: 42 })).status).toBe(400);
    // 被拒的请求不消耗脚本；DeepSeek 只查有没有，空串也放行
    const accepted = await second({ reasoning_content: "" });
    expect(accepted.status).toBe(200);
    expect(accepted.text).toContain(`"content":"等于"`);
  });

  it("OpenAI 协议：没调工具的回复，推理带不带回来都行（DeepSeek 忽略它）；没发过推理的工具调用也不查", async () => {
    await start([{ thinking: "想想", text: "好" }, { toolCalls: [{ id: "call_9", name: "calc", arguments: {} }] }, { text: "再好" }, { text: "又好" }]);
    await post("/v1/chat/completions", { messages: [{ role: "user", content: "hi" }] });
    const plain = await post("/v1/chat/completions", {
      messages: [{ role: "user", content: "hi" }, { role: "assistant", content: "好", reasoning_content: "想想" }, { role: "user", content: "再来" }],
    });
    expect(plain.status).toBe(200);
    const withoutThinking = { role: "assistant", content: null, tool_calls: [{ id: "call_9", type: "function", function: { name: "calc", arguments: "{}" } }] };
    expect((await post("/v1/chat/completions", { messages: [{ role: "user", content: "hi" }, withoutThinking, { role: "tool", tool_call_id: "call_9", content: "0" }] })).status).toBe(200);
    expect((await post("/v1/chat/completions", { messages: [{ role: "user", content: "hi" }, withoutThinking, { role: "tool", tool_call_id: "call_9", content: "0" }] })).status).toBe(200);
  });

  it("Anthropic 协议：思考块（thinking_delta + signature_delta）在最前；下一轮必须原样送回，否则 400", async () => {
    await start([{ thinking: "要用 calc", toolCalls: [{ id: "toolu_1", name: "calc", arguments: { expression: "1+2" } }] }, { text: "等于 3" }]);
    const first = dataOf((await post("/v1/messages", { messages: [{ role: "user", content: "算 1+2" }] })).text);
    const blocks = first.filter((e) => e.type === "content_block_start").map((e) => (e.content_block as { type: string }).type);
    expect(blocks).toEqual(["thinking", "tool_use"]);
    const signature = first.map((e) => e.delta as { type?: string; signature?: string } | undefined).find((d) => d?.type === "signature_delta")?.signature;
    expect(signature).toBe(signatureOf("要用 calc"));

    const toolUse = { type: "tool_use", id: "toolu_1", name: "calc", input: { expression: "1+2" } };
    const result = { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "3" }] };
    const second = (assistant: unknown[]) =>
      post("/v1/messages", { messages: [{ role: "user", content: "算 1+2" }, { role: "assistant", content: assistant }, result] });

    const missing = await second([toolUse]);
    expect(missing.status).toBe(400);
    expect(missing.text).toContain("Expected `thinking` or `redacted_thinking`, but found `tool_use`");
    const forged = await second([{ type: "thinking", thinking: "要用 calc", signature: "forged" }, toolUse]);
    expect(forged.status).toBe(400);
    expect(forged.text).toContain("Invalid `signature` in `thinking` block");
    // 被拒的请求不消耗脚本：原样送回的这一次拿到第二个回合
    const accepted = await second([{ type: "thinking", thinking: "要用 calc", signature }, toolUse]);
    expect(accepted.status).toBe(200);
    expect(accepted.text).toContain(`"text":"等于"`);
  });
});

describe("重定向与不是事件流的 200", () => {
  it("redirect 回合：给出状态码与 Location，不带正文", async () => {
    await start([{ redirect: 307, location: "https://elsewhere.example/v1/messages" }, { redirect: 308, location: "/moved/v1/messages" }]);
    const cross = await post("/v1/messages", {});
    expect([cross.status, cross.headers.get("location"), cross.text]).toEqual([307, "https://elsewhere.example/v1/messages", ""]);
    const same = await post("/v1/messages", {});
    expect([same.status, same.headers.get("location")]).toEqual([308, "/moved/v1/messages"]);
  });

  it("notStream 回合：200，给定的类型与正文", async () => {
    await start([{ notStream: "<html>请先登录</html>", contentType: "text/html; charset=utf-8" }]);
    const { status, text, headers } = await post("/v1/chat/completions", {});
    expect([status, headers.get("content-type"), text]).toEqual([200, "text/html; charset=utf-8", "<html>请先登录</html>"]);
  });
});

describe("scriptedProvider 的 fault：重定向、不是事件流、推理", () => {
  it("redirect 与 notStream 原样当作回合；thinking 叠加在剧本的回答上", async () => {
    const { scriptedProvider } = await import("../src/index.js");
    const faults = [
      { redirect: 307, location: "https://elsewhere.example/v1/messages" },
      { notStream: "<html>登录</html>", contentType: "text/html" },
      { thinking: "想想" },
    ];
    const script = scriptedProvider({ answer: () => ({ text: "好", toolCalls: [] }), fault: (index) => faults[index] });
    const request = { method: "POST", path: "/v1/messages", api: "anthropic" as const, headers: {}, body: {} };
    expect(script(request, 0)).toEqual(faults[0]);
    expect(script(request, 1)).toEqual(faults[1]);
    expect(script(request, 2)).toMatchObject({ text: "好", thinking: "想想" });
  });
});
