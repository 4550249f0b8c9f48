/**
 * providers/guards/network.ts 里 TLS 的规则逐条验证：哪些错误码说成哪一句（逐字），错误码从哪里读，
 * 什么时候才去试 TLS 握手。tls.test.ts 走的是真的请求那条整路；这里直接给 diagnoseWrongScheme
 * 一个按剧本失败的 fetch，端口是本机真的 TLS 服务器与真的普通 TCP 服务器。
 */
import net, { type AddressInfo } from "node:net";
import { describe, expect, it, onTestFinished } from "vitest";

import { describeTlsProblem, diagnoseWrongScheme } from "../src/providers/guards/network.js";
import { startTlsServer } from "./helpers/test-only-tls.js";

const REASON = "原因原文";
const UNTRUSTED = `TLS 错误：服务器的证书不受信任（${REASON}）。如果这是自签名或公司网络的证书：把签发它的 CA 证书存成 PEM 文件，再用 NODE_EXTRA_CA_CERTS=<文件路径> npm start 启动`;
const PLAIN_PORT = "TLS 错误：这个端口说的是普通 HTTP，不是 HTTPS：请把 HARNESS_BASE_URL 里的 https:// 改成 http://";
const BAD_CERT = `TLS 错误：服务器的证书不能用（${REASON}）`;
const WRONG_SCHEME = "TLS 错误：这个端口说的是 HTTPS：请把 HARNESS_BASE_URL 里的 http:// 改成 https://";

/** fetch 失败时 undici 的样子：TypeError("fetch failed")，真正的错误码在 cause 上。 */
const fetchFailed = (code: unknown): Error => new TypeError("fetch failed", { cause: Object.assign(new Error("底层"), { code }) });

describe("describeTlsProblem：错误码说成一句怎么改的话", () => {
  it.each([
    ["DEPTH_ZERO_SELF_SIGNED_CERT", UNTRUSTED],
    ["SELF_SIGNED_CERT_IN_CHAIN", UNTRUSTED],
    ["UNABLE_TO_GET_ISSUER_CERT", UNTRUSTED],
    ["UNABLE_TO_GET_ISSUER_CERT_LOCALLY", UNTRUSTED],
    ["UNABLE_TO_VERIFY_LEAF_SIGNATURE", UNTRUSTED],
    ["CERT_UNTRUSTED", UNTRUSTED],
    ["ERR_SSL_WRONG_VERSION_NUMBER", PLAIN_PORT],
    ["ERR_SSL_PACKET_LENGTH_TOO_LONG", PLAIN_PORT],
    ["ERR_SSL_UNKNOWN_PROTOCOL", PLAIN_PORT],
    ["CERT_HAS_EXPIRED", BAD_CERT],
    ["ERR_TLS_CERT_ALTNAME_INVALID", BAD_CERT],
    // 名单要整个对上：前后多出字符的就不是那个错误码
    ["X_CERT_UNTRUSTED", BAD_CERT],
    ["CERT_UNTRUSTED_X", BAD_CERT],
    ["X_ERR_SSL_WRONG_VERSION_NUMBER", undefined],
    ["ERR_SSL_WRONG_VERSION_NUMBER_X", undefined],
    ["ECONNRESET", undefined],
  ])("cause.code = %s", (code, expected) => {
    expect(describeTlsProblem(fetchFailed(code), REASON)).toBe(expected);
  });

  it("错误码先看 cause，cause 上没有就看错误自己", () => {
    const both = Object.assign(fetchFailed("CERT_HAS_EXPIRED"), { code: "ERR_SSL_WRONG_VERSION_NUMBER" });
    expect(describeTlsProblem(both, REASON)).toBe(BAD_CERT);
    expect(describeTlsProblem(Object.assign(new Error("直接的"), { code: "CERT_UNTRUSTED" }), REASON)).toBe(UNTRUSTED);
    expect(describeTlsProblem({ code: "ERR_SSL_UNKNOWN_PROTOCOL" }, REASON)).toBe(PLAIN_PORT);
  });

  it.each([
    ["没有错误码", new Error("普通")],
    ["null", null],
    ["undefined", undefined],
    ["错误码不是字符串（toString 会说成证书问题）", fetchFailed({ toString: () => "CERT_HAS_EXPIRED" })],
    ["读错误码就抛", new Proxy({}, { get: () => { throw new Error("陷阱"); } })],
  ])("%s：不是 TLS 的问题，不抛", (_label, error) => {
    expect(describeTlsProblem(error, REASON)).toBeUndefined();
  });
});

/** 本机一个真的 TLS 服务器：握手能成功的端口。 */
async function tlsPort(host?: string): Promise<number> {
  const started = await startTlsServer((_req, res) => res.end(), host);
  onTestFinished(() => started.close());
  return started.port;
}

/** 本机一个真的 TCP 服务器，一连上就关：握手不会成功的端口。 */
async function plainPort(): Promise<number> {
  const server = net.createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return (server.address() as AddressInfo).port;
}

/** 一个照剧本失败的 fetch：记下被调用了几次，抛出给定的错误。 */
function failingFetch(error: Error): { doFetch: typeof fetch; calls: () => number } {
  let calls = 0;
  const doFetch = (async () => {
    calls++;
    throw error;
  }) as unknown as typeof fetch;
  return { doFetch, calls: () => calls };
}

describe("diagnoseWrongScheme：http:// 连到了 HTTPS 端口就说写反了", () => {
  it("成功的请求原样交回", async () => {
    const response = new Response("好");
    const wrapped = diagnoseWrongScheme((async () => response) as unknown as typeof fetch);
    expect(await wrapped("http://127.0.0.1:1/")).toBe(response);
  });

  it.each(["UND_ERR_SOCKET", "ECONNRESET"])("对方没回答就关了（%s），那个端口说 TLS：换成写反了的说明", async (code) => {
    const port = await tlsPort();
    const { doFetch, calls } = failingFetch(fetchFailed(code));
    const error: unknown = await diagnoseWrongScheme(doFetch)(`http://127.0.0.1:${port}/v1`, {}).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toBe(WRONG_SCHEME);
    expect((error as { code?: unknown }).code).toBe("ERR_HTTP_TO_HTTPS_PORT");
    expect(describeTlsProblem(error, REASON)).toBe(WRONG_SCHEME);
    expect(calls()).toBe(1);
  });

  it("IPv6 地址（[::1]）：去掉方括号再握手", async (test) => {
    const port = await tlsPort("::1").catch((error: NodeJS.ErrnoException) => {
      if (error.code === "EADDRNOTAVAIL" || error.code === "EAFNOSUPPORT") return undefined;
      throw error;
    });
    if (port === undefined) return test.skip("这台机器没有 IPv6 的 ::1");
    const { doFetch } = failingFetch(fetchFailed("UND_ERR_SOCKET"));
    const error: unknown = await diagnoseWrongScheme(doFetch)(`http://[::1]:${port}/v1`).catch((caught: unknown) => caught);
    expect((error as Error).message).toBe(WRONG_SCHEME);
  });

  it("没给 init：照样去握手，那个端口不说 TLS 就原样抛出", async () => {
    const port = await plainPort();
    const original = fetchFailed("ECONNRESET");
    const { doFetch } = failingFetch(original);
    await expect(diagnoseWrongScheme(doFetch)(`http://127.0.0.1:${port}/v1`)).rejects.toBe(original);
  });

  it("那个端口不说 TLS：原来的错误原样抛出", async () => {
    const port = await plainPort();
    const original = fetchFailed("UND_ERR_SOCKET");
    const { doFetch } = failingFetch(original);
    await expect(diagnoseWrongScheme(doFetch)(`http://127.0.0.1:${port}/v1`, {})).rejects.toBe(original);
  });

  it.each([
    ["连不上（ECONNREFUSED）不是「没回答就关了」", (port: number) => `http://127.0.0.1:${port}/v1`, "ECONNREFUSED"],
    ["地址本来就是 https://", (port: number) => `https://127.0.0.1:${port}/v1`, "UND_ERR_SOCKET"],
    ["地址不是 URL", () => "不是地址", "UND_ERR_SOCKET"],
  ])("%s：不去握手，原来的错误原样抛出", async (_label, url, code) => {
    const port = await tlsPort();
    const original = fetchFailed(code);
    const { doFetch } = failingFetch(original);
    await expect(diagnoseWrongScheme(doFetch)(url(port), {})).rejects.toBe(original);
  });

  it("传进来的不是字符串（URL 对象）：不去握手，原来的错误原样抛出", async () => {
    const port = await tlsPort();
    const original = fetchFailed("UND_ERR_SOCKET");
    const { doFetch } = failingFetch(original);
    await expect(diagnoseWrongScheme(doFetch)(new URL(`http://127.0.0.1:${port}/v1`), {})).rejects.toBe(original);
  });

  it("用户已经取消了：不再握手，原来的错误原样抛出", async () => {
    const port = await tlsPort();
    const original = fetchFailed("UND_ERR_SOCKET");
    const { doFetch } = failingFetch(original);
    const controller = new AbortController();
    controller.abort();
    await expect(diagnoseWrongScheme(doFetch)(`http://127.0.0.1:${port}/v1`, { signal: controller.signal })).rejects.toBe(original);
  });
});
