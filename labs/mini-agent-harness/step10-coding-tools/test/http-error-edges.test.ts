// 错误措辞的边角：变异测试（npm run mutation）找出来的、别的测试没有测到的形状。
// 全部在进程内：直接构造 Response，不起服务器。
import { describe, expect, it } from "vitest";

import { describeHttpError, describeNetworkError, describeNotEventStream, describeStreamCut, errorDetail, MAX_ERROR_BODY_BYTES } from "../src/providers/http-error.js";

describe("errorDetail：从错误正文里取「类型：说明」", () => {
  it("不是对象、没有 error 也没有顶层的说明、error 是 null 或数字：没有说明", () => {
    for (const body of [null, undefined, "一句话", 5, {}, { error: null }, { error: 5 }, { error: {} }, { message: 5, code: 7 }, { detail: "x" }]) {
      expect(errorDetail(body), JSON.stringify(body)).toBeUndefined();
    }
  });

  it("error 直接是一句话（Ollama 等）", () => {
    expect(errorDetail({ error: "model not found" })).toBe("model not found");
  });

  it("类型取 type，type 为空或不是字符串时取 code；两者都有才拼「类型：说明」", () => {
    expect(errorDetail({ error: { type: "invalid_request_error", code: "c", message: "坏了" } })).toBe("invalid_request_error：坏了");
    expect(errorDetail({ error: { type: "", code: "rate_limit", message: "慢点" } })).toBe("rate_limit：慢点");
    expect(errorDetail({ error: { type: 7, code: "rate_limit", message: "慢点" } })).toBe("rate_limit：慢点");
    expect(errorDetail({ error: { type: 7, code: 429, message: "慢点" } })).toBe("429：慢点");
    expect(errorDetail({ error: { code: 1.5, message: "慢点" } })).toBe("慢点");
    expect(errorDetail({ error: { code: 1e400, message: "慢点" } })).toBe("慢点");
    expect(errorDetail({ error: { code: "", message: "慢点" } })).toBe("慢点");
    expect(errorDetail({ error: { type: "overloaded_error" } })).toBe("overloaded_error");
    expect(errorDetail({ error: { type: "overloaded_error", message: 42 } })).toBe("overloaded_error");
    expect(errorDetail({ error: { message: "只有说明" } })).toBe("只有说明");
  });

  it("不套 error 信封的正文（硅基流动、vLLM 旧版）：顶层的说明，有错误码或类型就带上", () => {
    expect(errorDetail({ code: 30011, message: "paid balance is insufficient", data: null })).toBe("30011：paid balance is insufficient");
    expect(errorDetail({ message: "TPM limit reached.", data: null })).toBe("TPM limit reached.");
    expect(errorDetail({ object: "error", message: "too long", type: "BadRequestError", param: null, code: 400 })).toBe("BadRequestError：too long");
    // 有 error 字段时只看它：顶层的 message 不算
    expect(errorDetail({ error: { type: "a", message: "里面" }, message: "外面" })).toBe("a：里面");
  });
});

describe("describeHttpError 的边角", () => {
  it("没有正文：用状态文字；连状态文字也没有就只报状态码", async () => {
    expect(await describeHttpError(new Response(null, { status: 500, statusText: "Internal Server Error" }))).toBe("HTTP 500：Internal Server Error");
    expect(await describeHttpError(new Response(null, { status: 500 }))).toBe("HTTP 500");
  });

  it("不是 JSON 的正文：去掉首尾空白，只留前 200 个字符", async () => {
    expect(await describeHttpError(new Response("  网关坏了 \n", { status: 502 }))).toBe("HTTP 502：网关坏了");
    expect(await describeHttpError(new Response(`${"x".repeat(300)}`, { status: 502 }))).toBe(`HTTP 502：${"x".repeat(200)}`);
  });

  it("JSON 正文里没有说明：退回正文原文", async () => {
    expect(await describeHttpError(new Response('{"ok":false}', { status: 400 }))).toBe('HTTP 400：{"ok":false}');
  });

  it("正文超过上限：只读开头，并注明", async () => {
    const text = await describeHttpError(new Response("y".repeat(MAX_ERROR_BODY_BYTES + 10), { status: 500 }));
    expect(text).toBe(`HTTP 500：${"y".repeat(200)}（错误正文超过 16 KB，只读了开头）`);
    const exact = await describeHttpError(new Response("z".repeat(MAX_ERROR_BODY_BYTES), { status: 500 }));
    expect(exact).toBe(`HTTP 500：${"z".repeat(200)}`);
  });

  it("正文分几块到达：拼起来再解析", async () => {
    const chunks = ['{"error":{"type":"t",', '"message":"分块"}}'].map((s) => new TextEncoder().encode(s));
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        const next = chunks.shift();
        if (next) controller.enqueue(next);
        else controller.close();
      },
    });
    expect(await describeHttpError(new Response(body, { status: 400 }))).toBe("HTTP 400：t：分块");
  });

  it("读到一半断了：有多少说多少", async () => {
    let sent = false;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent) controller.error(new Error("socket closed"));
        else controller.enqueue(new TextEncoder().encode("半截"));
        sent = true;
      },
    });
    expect(await describeHttpError(new Response(body, { status: 503 }))).toBe("HTTP 503：半截");
  });

  it("不知道自己的地址（response.url 为空）时，相对的 Location 按 unknown.invalid 解析", async () => {
    const response = new Response("正文", { status: 307, headers: { location: "/v2" } });
    expect(await describeHttpError(response)).toContain("服务器要求改去另一个主机 unknown.invalid，没有跟随");
  });

  it("没有正文的跨主机重定向：点名要去的主机", async () => {
    const response = new Response(null, { status: 302, headers: { location: "https://elsewhere.example/v1" } });
    expect(await describeHttpError(response)).toBe(
      "HTTP 302：服务器要求改去另一个主机 elsewhere.example，没有跟随：密钥只发给你配置的主机（要用它，请把 HARNESS_BASE_URL 直接设成那里）",
    );
  });
});

describe("网络错误、流中断、不是事件流", () => {
  it("外层只有 fetch failed：用 cause 的说明与错误码；已经写在说明里的错误码不重复", () => {
    const cause = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:1"), { code: "ECONNREFUSED" });
    expect(describeStreamCut(new TypeError("fetch failed", { cause }))).toBe("流在结束前中断：connect ECONNREFUSED 127.0.0.1:1");
    const other = Object.assign(new Error("other side closed"), { code: "UND_ERR_SOCKET" });
    expect(describeStreamCut(new TypeError("fetch failed", { cause: other }))).toBe("流在结束前中断：other side closed（UND_ERR_SOCKET）");
    expect(describeStreamCut(new TypeError("fetch failed"))).toBe("流在结束前中断：fetch failed");
    expect(describeStreamCut(new Error("外层", { cause: new Error("里层") }))).toBe("流在结束前中断：外层：里层");
    expect(describeStreamCut("字符串")).toBe("流在结束前中断：字符串");
    expect(describeNetworkError(Object.assign(new Error("boom"), { code: 5 }))).toMatch(/^网络错误：boom(?!（)/);
    expect(describeNetworkError(Object.assign(new Error("boom"), { code: "EX" }))).toMatch(/^网络错误：boom（EX）/);
  });

  it("不是事件流：报 content-type 与开头（空白压成一个空格）；没有正文、没有类型时也说得清", async () => {
    const html = new Response("  <html>\n\n  <body>登录</body>\n", { headers: { "content-type": "text/html" } });
    expect(await describeNotEventStream(html)).toBe("服务器返回的不是事件流（content-type: text/html），开头是：<html> <body>登录</body>。请检查 HARNESS_BASE_URL");
    const big = new Response("b".repeat(5000), { headers: { "content-type": "application/octet-stream" } });
    expect(await describeNotEventStream(big)).toBe(`服务器返回的不是事件流（content-type: application/octet-stream），开头是：${"b".repeat(120)}。请检查 HARNESS_BASE_URL`);
    const empty = new Response(null, { status: 200 });
    empty.headers.delete("content-type");
    expect(await describeNotEventStream(empty)).toBe("服务器返回的不是事件流（content-type: 未知类型）。请检查 HARNESS_BASE_URL");
  });
});
