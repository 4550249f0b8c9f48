/**
 * 本机的地址拒绝连接不重试（issue 49 第 7 条）：HTTP 层与回合层都在第一次之后放弃，
 * 一轮在一次请求之内结束（以前是 HTTP 层 2 次、回合层 3 次，共约 20 秒）。远端的地址拒绝连接照旧两层都重试。
 * 全在本进程里：对着 127.0.0.1 上关掉的端口调用 createProviderStream 与 runWithRetry。
 */
import { describe, expect, it } from "vitest";
import { startProviderServer } from "scripted-provider";

import { createProviderStream } from "../src/providers/index.js";
import { describeNetworkError } from "../src/providers/http-error.js";
import { NOBODY_LISTENING } from "../src/providers/guards/network.js";
import { classifyAssistantError } from "../src/retry/classify.js";
import { requestWithRetry } from "../src/providers/http-retry.js";
import { runWithRetry } from "../src/retry/turn-retry.js";
import { createBuiltinTools } from "../src/tools/index.js";
import type { AssistantMessage, HarnessEvent } from "../src/types.js";
import { KEY } from "./helpers/providers.js";

const refused = (address: string): TypeError =>
  new TypeError("fetch failed", { cause: Object.assign(new Error(`connect ECONNREFUSED ${address}:8080`), { code: "ECONNREFUSED", address, port: 8080 }) });
const failed = (errorMessage: string): AssistantMessage => ({ role: "assistant", content: [], stopReason: "error", errorMessage });

describe("HTTP 层：本机拒绝连接不重试，远端照旧", () => {
  it.each([
    ["本机 127.0.0.1", "127.0.0.1", 1, 0],
    ["远端 203.0.113.7", "203.0.113.7", 3, 2],
  ])("%s：请求 %i 次", async (_label, address, calls, retries) => {
    let sent = 0;
    const send = async (): Promise<Response> => {
      sent++;
      throw refused(address as string);
    };
    const outcome = await requestWithRetry(send, { sleep: async () => true });
    expect(outcome).toMatchObject({ kind: "error", retries });
    expect(sent).toBe(calls);
  });
});

describe("回合层：分类器认得这句提示", () => {
  it("本机拒绝连接 → fatal（不重试）；远端拒绝连接、没有地址的 ECONNREFUSED 原文 → 仍可重试", () => {
    expect(classifyAssistantError(failed(describeNetworkError(refused("127.0.0.1"))))).toBe("fatal");
    expect(classifyAssistantError(failed(describeNetworkError(refused("203.0.113.7"))))).toBe("retryable");
    expect(classifyAssistantError(failed("网络错误：connect ECONNREFUSED 127.0.0.1:9（ECONNREFUSED）"))).toBe("retryable");
  });
});

describe("一整轮：对着 127.0.0.1 上关掉的端口", () => {
  it("默认的重试设置下也只发一次请求，没有重试事件，最后一条是带提示的错误", async () => {
    const server = await startProviderServer([]);
    await server.close();
    let requests = 0;
    const counting: typeof fetch = (input, init) => {
      requests++;
      return fetch(input, init);
    };
    const streamFn = createProviderStream({ api: "openai", baseUrl: server.openaiBaseUrl, apiKey: KEY, model: "m", fetch: counting });
    const events: HarnessEvent[] = [];
    const context = { messages: [{ role: "user" as const, content: "你好" }] };
    for await (const event of runWithRetry({ streamFn, context, tools: createBuiltinTools(), toolContext: { cwd: process.cwd() } })) events.push(event);
    expect(requests).toBe(1);
    expect(events.filter((event) => event.type === "auto_retry_start")).toEqual([]);
    const last = events.filter((event) => event.type === "message").at(-1);
    expect(last?.type === "message" && last.message.role === "assistant" && last.message.errorMessage).toContain(NOBODY_LISTENING);
  });
});
