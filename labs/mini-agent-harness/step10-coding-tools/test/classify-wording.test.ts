/**
 * src/retry/classify.ts 的正则里那些「可有可无」的部分：`.?`（单词之间可以没有分隔）、`s?`（单数也认）、
 * `(?:the )?`（可以没有这个词）、`^`（只认开头）。每一行一条措辞，只有一张表里的一条模式认得它——
 * 那个可选的部分一旦变成必需的（或锚点丢了），结论就变，测试就失败（变异测试的静态存活者，scripts/mutation/）。
 * 真实文案见 test/classify.test.ts；这里多是同一句话的另一种写法（驼峰的异常名、单数、没有冠词）。
 */
import { describe, expect, it } from "vitest";

import { isContextOverflow, isRetryableAssistantError } from "../src/retry/classify.js";
import type { AssistantMessage } from "../src/types.js";

const failed = (errorMessage: string): AssistantMessage => ({ role: "assistant", content: [], stopReason: "error", errorMessage });

describe("表一：溢出的另一种写法也认", () => {
  it.each([
    ["没有 model's", "Requested 9000 tokens, which exceeds the maximum context length of 8192 tokens"],
    ["models 没有撇号", "exceeds the models maximum context length of 8,192 tokens"],
    ["单数 token", "exceeds maximum context length of 8192 token(s)"],
    ["括号前没有空格", "Input length (9000) exceeds the maximum context length(8192)"],
    ["没有 the", "Input exceeds maximum allowed input length of 4,096 tokens"],
    ["单数 token（allowed input length）", "exceeds the maximum allowed input length of 4096 token(s)"],
    ["models 没有撇号（Together AI）", "Input (9000 tokens) is longer than the models context length (8192 tokens)"],
    ["两处都是单数（DS4）", "prompt has 1 token, but the configured context size is 1 token"],
    ["只有状态码（Pi 的格式）", "413"],
  ])("%s：%s", (_, text) => {
    expect(isContextOverflow(failed(text))).toBe(true);
  });

  it("HTTP 413 只认开头的：别的错误里引用了一句 HTTP 413，不是我们的请求太大", () => {
    expect(isContextOverflow(failed("HTTP 502：upstream said HTTP 413：too large"))).toBe(false);
  });

  it("Bedrock 的限流只认开头的：前面套了别的前缀，表二不挡，too many tokens 照样算溢出", () => {
    expect(isContextOverflow(failed("Throttling error: Too many tokens, please wait before trying again."))).toBe(false);
    expect(isContextOverflow(failed("ValidationException: Throttling error: Too many tokens"))).toBe(true);
  });
});

describe("我们自己格式的前缀只认开头", () => {
  it("表二的 HTTP 429：只认开头的：溢出的文案里引用了一句 HTTP 429，照样算溢出", () => {
    expect(isContextOverflow(failed("HTTP 429：too many tokens"))).toBe(false);
    expect(isContextOverflow(failed("HTTP 400：prompt is too long (earlier HTTP 429：slow down)"))).toBe(true);
  });

  it("表三的「回复太长：」「构造请求失败：」「TLS 错误：」只认开头的：服务器 503 的正文里碰巧写着它们，照样重试", () => {
    for (const quoted of ["回复太长：", "构造请求失败：", "TLS 错误："]) {
      expect(isRetryableAssistantError(failed(`${quoted}x`))).toBe(false);
      expect(isRetryableAssistantError(failed(`HTTP 503：upstream said ${quoted}x`))).toBe(true);
    }
  });
});

describe("表三：不可重试的另一种写法也认", () => {
  it.each([
    ["冒号前有空格", 'HTTP 429：{"error":{"code" : "1308","message":"套餐用量已达上限"}}'],
    ["冒号后有空格、没有引号", 'HTTP 429：{"error": {"code": 1308, "message": "套餐用量已达上限"}}'],
  ])("智谱 1308，%s", (_, text) => {
    expect(isRetryableAssistantError(failed(text))).toBe(false);
  });

  it("「协议错误：」只认开头：服务器的正文里碰巧有这几个字，503 照样重试", () => {
    expect(isRetryableAssistantError(failed("HTTP 503：服务器说 协议错误：正在维护"))).toBe(true);
    expect(isRetryableAssistantError(failed("协议错误：data 不是 JSON，HTTP 503"))).toBe(false);
  });
});

describe("表四：瞬时故障的另一种写法也认（驼峰的异常名、没有可选的词）", () => {
  it.each([
    "RateLimitExceeded",
    "ServiceUnavailable",
    "Service Unavailable",
    "ServiceIsUnavailable",
    "service is unavailable",
    "ServiceTemporarilyUnavailable",
    "InternalServerError",
    "InternalError",
    "ProviderReturnedAnError",
    "UpstreamConnectError",
    "UpstreamRequestFailed",
    "NetworkError",
    "ConnectionRefused",
    "WebSocketClosed",
    "WebSocketConnectionLimitReached",
    "http2 stream failed",
    "request time out",
  ])("%s", (text) => {
    expect(isRetryableAssistantError(failed(text))).toBe(true);
  });
});
