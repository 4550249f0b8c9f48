/**
 * 本机的地址拒绝连接（issue 49 第 7 条）：HARNESS_BASE_URL=http://127.0.0.1:<没人听的端口>/v1 时，
 * 错误那一行点名地址，并说该查什么（启动时「模型：」那一行的地址、本地服务器开着没有）。
 * 远端的地址、本机的代理拒绝连接、别的错误码：不加这句提示。
 */
import { describe, expect, it } from "vitest";
import { startProviderServer } from "scripted-provider";

import { createProviderStream } from "../src/providers/index.js";
import { localRefusalHint, NOBODY_LISTENING } from "../src/providers/guards/network.js";
import { collect, KEY } from "./helpers/providers.js";

/** 一个刚刚空出来、没有人在听的本机端口的地址 */
async function closedBaseUrls(): Promise<{ openai: string; anthropic: string; port: string }> {
  const server = await startProviderServer([]);
  await server.close();
  return { openai: server.openaiBaseUrl, anthropic: server.anthropicBaseUrl, port: new URL(server.openaiBaseUrl).port };
}

/** Node 的 fetch 连不上时抛的样子：TypeError("fetch failed")，原因在 cause 里 */
const refused = (address: string, port = 11434): TypeError =>
  new TypeError("fetch failed", { cause: Object.assign(new Error(`connect ECONNREFUSED ${address}:${port}`), { code: "ECONNREFUSED", address, port }) });

describe("本机的端口没有人在听：一行说出地址和该查什么", () => {
  it.each(["openai", "anthropic"] as const)("%s 协议：对着 127.0.0.1 上关掉的端口", async (api) => {
    const urls = await closedBaseUrls();
    const stream = createProviderStream({ api, baseUrl: urls[api], apiKey: KEY, model: "m" });
    const { message } = await collect(stream);
    expect(message.stopReason).toBe("error");
    const text = message.errorMessage ?? "";
    expect(text).toMatch(new RegExp(`^网络错误：connect ECONNREFUSED 127\\.0\\.0\\.1:${urls.port}——${NOBODY_LISTENING}：`));
    expect(text).toContain("「模型：」那一行的地址（HARNESS_BASE_URL）");
    expect(text).toContain("ollama serve");
    expect(text).not.toContain("\n");
  });
});

describe("localRefusalHint：只在本机拒绝连接时说", () => {
  it("127.x、::1、IPv4 映射的 ::ffff:127.0.0.1、localhost 的两次尝试（AggregateError）都算本机", () => {
    for (const address of ["127.0.0.1", "127.8.9.10", "::1", "::ffff:127.0.0.1"]) expect(localRefusalHint(refused(address), {}), address).toContain(NOBODY_LISTENING);
    const both = Object.assign(new AggregateError([refused("::1").cause, refused("127.0.0.1").cause], "connect ECONNREFUSED"), { code: "ECONNREFUSED" });
    expect(localRefusalHint(new TypeError("fetch failed", { cause: both }), {})).toContain(NOBODY_LISTENING);
    // 没有包在 fetch failed 里的系统错误也认
    expect(localRefusalHint(refused("127.0.0.1").cause, {})).toContain(NOBODY_LISTENING);
  });

  it("远端的地址拒绝连接、本机的别的错误（超时、重置）、没有地址的：不说", () => {
    expect(localRefusalHint(refused("203.0.113.7"), {})).toBeUndefined();
    expect(localRefusalHint(refused("::ffff:203.0.113.7"), {})).toBeUndefined();
    const reset = new TypeError("fetch failed", { cause: Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET", address: "127.0.0.1" }) });
    expect(localRefusalHint(reset, {})).toBeUndefined();
    expect(localRefusalHint(new TypeError("fetch failed", { cause: Object.assign(new Error("x"), { code: "ECONNREFUSED" }) }), {})).toBeUndefined();
    const mixed = new AggregateError([refused("127.0.0.1").cause, refused("203.0.113.7").cause]);
    expect(localRefusalHint(new TypeError("fetch failed", { cause: mixed }), {})).toBeUndefined();
    expect(localRefusalHint(new TypeError("fetch failed", { cause: new AggregateError([]) }), {})).toBeUndefined();
  });

  it("拒绝连接的是本机的代理（端口对得上 HTTP(S)_PROXY）：那是代理没开，不说「本地服务器」", () => {
    expect(localRefusalHint(refused("127.0.0.1", 3128), { HTTPS_PROXY: "http://127.0.0.1:3128" })).toBeUndefined();
    expect(localRefusalHint(refused("127.0.0.1", 80), { http_proxy: "http://localhost" })).toBeUndefined();
    expect(localRefusalHint(refused("127.0.0.1", 11434), { HTTPS_PROXY: "http://127.0.0.1:3128" })).toContain(NOBODY_LISTENING);
    expect(localRefusalHint(refused("127.0.0.1", 3128), { HTTPS_PROXY: "不是地址" })).toContain(NOBODY_LISTENING);
  });

  it("外来的值读一个属性就抛：不加提示，也不抛出去", () => {
    const hostile = new Proxy(new Error("x"), { get: () => { throw new Error("别碰我"); } });
    expect(localRefusalHint(hostile, {})).toBeUndefined();
    expect(localRefusalHint(undefined, {})).toBeUndefined();
  });
});
