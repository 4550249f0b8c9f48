/**
 * 回合层不重试确定性的失败（issue 31 第 8、10 条）：TLS（证书不受信任、http 与 https 写反）与回复超过上限。
 * 错误消息都由本机真的服务器造出来，再交给分类器：它们以前是「网络错误：…」「流在结束前中断」，会被重试三次。
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it, type TestContext } from "vitest";

import { createOpenAIStream } from "../src/providers/openai-completions.js";
import { MAX_REPLY_CHARS } from "../src/providers/guards/stream.js";
import { classifyAssistantError } from "../src/retry/classify.js";
import { collect, KEY } from "./helpers/providers.js";
import { startTlsServer } from "./helpers/test-only-tls.js";

const noAnswer: http.RequestListener = (_req, res) => res.end();

async function plainServer(test: TestContext, handler: http.RequestListener): Promise<number> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  test.onTestFinished(() => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))));
  return (server.address() as AddressInfo).port;
}

async function tlsPort(test: TestContext): Promise<number> {
  const server = await startTlsServer(noAnswer);
  test.onTestFinished(() => server.close());
  return server.port;
}

const failureAt = async (baseUrl: string) => (await collect(createOpenAIStream({ baseUrl, apiKey: KEY, model: "m", maxRetries: 0 }))).message;

describe("TLS 与回复上限：分类为 fatal，不重试", () => {
  it("自签名证书", async (test) => {
    const message = await failureAt(`https://127.0.0.1:${await tlsPort(test)}/v1`);
    expect(message.errorMessage).toMatch(/^TLS 错误：/);
    expect(classifyAssistantError(message)).toBe("fatal");
  });

  it("http:// 连到 HTTPS 端口", async (test) => {
    const message = await failureAt(`http://127.0.0.1:${await tlsPort(test)}/v1`);
    expect(message.errorMessage).toMatch(/^TLS 错误：/);
    expect(classifyAssistantError(message)).toBe("fatal");
  });

  it("https:// 连到普通 HTTP 端口", async (test) => {
    const message = await failureAt(`https://127.0.0.1:${await plainServer(test, noAnswer)}/v1`);
    expect(message.errorMessage).toMatch(/^TLS 错误：/);
    expect(classifyAssistantError(message)).toBe("fatal");
  });

  it("回复超过上限（数字里有 500 之类也不算 5xx）", () => {
    const message = { role: "assistant" as const, content: [], stopReason: "error" as const, errorMessage: `回复太长：超过上限 ${MAX_REPLY_CHARS.toLocaleString("en-US")} 个字符（文字、推理与工具参数合计），已停止接收` };
    expect(classifyAssistantError(message)).toBe("fatal");
    expect(classifyAssistantError({ ...message, errorMessage: "回复太长：一个事件超过上限 8,000,500 字节还没结束，已停止接收" })).toBe("fatal");
  });
});

describe("在代码里造的设置写错：构造请求失败，分类为 fatal，不重试", () => {
  it.each([
    ["没有协议、端口像 5xx", "api.example.com:500/v1"],
    ["全角冒号", "https：//api.example.com/v1"],
    ["账号口令", "https://me:s3cret@api.example.com:503/v1"],
    ["两头的引号、路径里有 timeout", '"https://api.example.com/timeout"'],
  ])("%s", async (_label, baseUrl) => {
    const message = await failureAt(baseUrl);
    expect(message.errorMessage).toMatch(/^构造请求失败：baseUrl /);
    expect(classifyAssistantError(message)).toBe("fatal");
  });
});
