/**
 * TLS（issue 31 第 10 条）：证书不受信任、http 与 https 写反了，都说清楚怎么改，不当成网络抖动去重试。
 * 服务器是本机真的 HTTPS / HTTP 服务器；证书是 helpers/test-only-tls.ts 里仅供测试的自签名证书。
 */
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { describe, expect, it, type TestContext } from "vitest";

import { createOpenAIStream } from "../src/providers/openai-completions.js";
import { makeSandbox, removeSandbox, runCliProcess, withoutProvider } from "./helpers/cli.js";
import { collect, KEY } from "./helpers/providers.js";
import { OPENAI_ANSWER } from "./helpers/recordings.js";
import { startTlsServer, TEST_ONLY_CERT } from "./helpers/test-only-tls.js";

const answer: http.RequestListener = (_req, res) => {
  res.writeHead(200, { "content-type": "text/event-stream" });
  res.end(OPENAI_ANSWER);
};

/** 起一个服务器并数它收到的 TCP 连接：重试一次就多一个连接。 */
async function counted(test: TestContext, start: () => Promise<{ port: number; close(): Promise<void>; server: http.Server }>) {
  const started = await start();
  test.onTestFinished(() => started.close());
  let connections = 0;
  started.server.on("connection", () => connections++);
  return { port: started.port, connections: () => connections };
}

async function tlsServer() {
  const started = await startTlsServer(answer);
  return { ...started, server: started.server as http.Server };
}

async function plainServer() {
  const server = http.createServer(answer);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    server,
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

const stream = (baseUrl: string) => createOpenAIStream({ baseUrl, apiKey: KEY, model: "m" });

describe("TLS 的失败：说清楚怎么改，只连一次", () => {
  it("自签名证书：说出 NODE_EXTRA_CA_CERTS，不说「网络错误」", async (test) => {
    const server = await counted(test, tlsServer);
    const { message } = await collect(stream(`https://127.0.0.1:${server.port}/v1`));
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toMatch(/^TLS 错误：服务器的证书不受信任/);
    expect(message.errorMessage).toContain("NODE_EXTRA_CA_CERTS=");
    expect(server.connections()).toBe(1);
  });

  it("http:// 连到 HTTPS 端口：说该改成 https://（不是「other side closed」）", async (test) => {
    const server = await counted(test, tlsServer);
    const { message } = await collect(stream(`http://127.0.0.1:${server.port}/v1`));
    expect(message.errorMessage).toBe("TLS 错误：这个端口说的是 HTTPS：请把 HARNESS_BASE_URL 里的 http:// 改成 https://");
    // 一次请求，加一次确认它说 TLS 的握手
    expect(server.connections()).toBe(2);
  });

  it("https:// 连到普通 HTTP 端口：说该改成 http://，不带 OpenSSL 的原文", async (test) => {
    const server = await counted(test, plainServer);
    const { message } = await collect(stream(`https://127.0.0.1:${server.port}/v1`));
    expect(message.errorMessage).toBe("TLS 错误：这个端口说的是普通 HTTP，不是 HTTPS：请把 HARNESS_BASE_URL 里的 https:// 改成 http://");
    expect(server.connections()).toBe(1);
  });

  it("http:// 的连接被一个不说 TLS 的服务器直接掐断：照旧是网络错误", async (test) => {
    const server = await counted(test, async () => {
      const plain = await plainServer();
      plain.server.removeAllListeners("request");
      plain.server.on("request", (req: http.IncomingMessage) => req.socket.destroy());
      return plain;
    });
    // 网络错误会被 HTTP 层重试（http-retry.test.ts 证明）；这里只看它被说成什么：不重试，免得真等两次退避（约 1.5 秒）
    const { message } = await collect(createOpenAIStream({ baseUrl: `http://127.0.0.1:${server.port}/v1`, apiKey: KEY, model: "m", maxRetries: 0 }));
    expect(message.errorMessage).toMatch(/^网络错误：.*other side closed/);
  });

  it.skipIf(withoutProvider)("照提示做：NODE_EXTRA_CA_CERTS 指向这张证书，npm start 就能连上", async (test) => {
    const server = await counted(test, tlsServer);
    const dir = makeSandbox();
    test.onTestFinished(() => removeSandbox(dir));
    const ca = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "harness-ca-")), "test-only-ca.pem");
    fs.writeFileSync(ca, TEST_ONLY_CERT);
    test.onTestFinished(() => fs.rmSync(path.dirname(ca), { recursive: true, force: true }));
    const result = await runCliProcess(dir, [], "你好\n", { HARNESS_BASE_URL: `https://127.0.0.1:${server.port}/v1`, HARNESS_API_KEY: KEY, NODE_EXTRA_CA_CERTS: ca });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("助手> 转好了：HELLO WORLD");
  });
});
