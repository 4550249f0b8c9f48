/**
 * 代理（src/providers/guards/network.ts）：Node 的 fetch 只在 NODE_USE_ENV_PROXY=1 / --use-env-proxy 时才看 HTTP(S)_PROXY。
 * 用测试里起的一个真代理（test/helpers/proxy.ts）核对：开关没开时错误行点名开关、代理一个字节也没收到；
 * 开关打开时发往远端的请求经过代理，本机的脚本服务器（127.0.0.1）照样直连。
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it, type TestContext } from "vitest";
import { startProviderServer } from "scripted-provider";

import { keepLoopbackDirect, nodeHasProxySwitch, proxyHint } from "../src/providers/guards/network.js";
import { makeSandbox, removeSandbox, runCliProcess } from "./helpers/cli.js";
import { startRecordingProxy, type RecordingProxy } from "./helpers/proxy.js";
import { sseText } from "./helpers/raw-server.js";

const KEY = "sk-proxy-test";
/** 「远端」模型的主机名：只有代理认得它（映射到本机），直连会找不到这个主机。 */
const REMOTE = "model.example.test";
/**
 * 子进程里与代理有关的变量：先全部去掉（undefined 的变量不会传给子进程），再按用例设置，开发者自己 shell 里的代理不掺进来。
 * 不能设成空串：Node 先读小写的 http_proxy，空串也算「设了」，大写的那个就被忽略了。
 */
const PROXY_NAMES = ["HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy", "NO_PROXY", "no_proxy", "NODE_USE_ENV_PROXY", "NODE_OPTIONS"];
const NO_PROXY_ENV: NodeJS.ProcessEnv = Object.fromEntries(PROXY_NAMES.map((name) => [name, undefined]));

async function recordingProxy(test: TestContext): Promise<RecordingProxy> {
  const proxy = await startRecordingProxy({ [REMOTE]: "127.0.0.1" });
  test.onTestFinished(() => proxy.close());
  return proxy;
}

function sandbox(test: TestContext): string {
  const dir = makeSandbox();
  test.onTestFinished(() => removeSandbox(dir));
  return dir;
}

describe("proxyHint：设了代理变量、Node 却没在用它时才说话", () => {
  const off = { HTTPS_PROXY: "http://127.0.0.1:7890" };
  it("没开开关：点名变量与开关", () => {
    const hint = proxyHint(off, []);
    expect(hint).toContain("设置了 HTTPS_PROXY，但 Node 的 fetch 没有用它");
    expect(hint).toContain("NODE_USE_ENV_PROXY=1");
    if (nodeHasProxySwitch()) expect(hint).toContain("--use-env-proxy");
    else expect(hint).toContain("22.21 / 24.5");
  });
  it("没设代理变量：什么也不说", () => {
    expect(proxyHint({}, [])).toBe("");
    expect(proxyHint({ NODE_USE_ENV_PROXY: "1" }, [])).toBe("");
  });
  it("开关打开（环境变量、命令行、NODE_OPTIONS 三种写法）：只有这个 Node 真有开关时才不再提示", () => {
    for (const [env, argv] of [[{ ...off, NODE_USE_ENV_PROXY: "1" }, []], [off, ["--use-env-proxy"]], [{ ...off, NODE_OPTIONS: "--use-env-proxy" }, []]] as const) {
      expect(proxyHint(env, [...argv]) === "").toBe(nodeHasProxySwitch());
    }
  });
  it("哪些 Node 有开关：22.21、24.5 起", () => {
    expect(["20.19.0", "22.20.0", "23.11.0", "24.4.1"].map((v) => nodeHasProxySwitch(v))).toEqual([false, false, false, false]);
    expect(["22.21.0", "24.5.0", "26.0.0"].map((v) => nodeHasProxySwitch(v))).toEqual([true, true, true]);
  });
});

describe("keepLoopbackDirect：本机地址加进 NO_PROXY", () => {
  it("127.0.0.1 与 localhost 加进去，只加一次；小写的 no_proxy 优先；远端地址不动", () => {
    const env: NodeJS.ProcessEnv = {};
    keepLoopbackDirect("http://127.0.0.1:4567/v1", env);
    keepLoopbackDirect("http://127.0.0.1:4568/v1", env);
    keepLoopbackDirect("http://localhost:11434/v1", env);
    expect(env.NO_PROXY).toBe("127.0.0.1,localhost");
    const lower: NodeJS.ProcessEnv = { no_proxy: "corp.example" };
    keepLoopbackDirect("http://127.0.0.1:1/v1", lower);
    expect(lower).toEqual({ no_proxy: "corp.example,127.0.0.1" });
    const remote: NodeJS.ProcessEnv = {};
    keepLoopbackDirect("https://api.openai.com/v1", remote);
    keepLoopbackDirect("不是地址", remote);
    expect(remote).toEqual({});
  });
});

describe("keepLoopbackDirect：所有本机地址都直连", () => {
  it("[::1]、127.0.0.0/8 的任何地址、localhost. 与 *.localhost、::ffff:127.0.0.1：照 URL 的写法加进去", () => {
    const env: NodeJS.ProcessEnv = {};
    for (const url of ["http://[::1]:8080/v1", "http://[0:0:0:0:0:0:0:1]:1/v1", "http://127.0.0.2:1/v1", "http://127.1:1/v1", "http://LOCALHOST.:1/v1", "http://ollama.localhost:1/v1", "http://[::ffff:127.0.0.1]:1/v1"]) keepLoopbackDirect(url, env);
    expect(env.NO_PROXY).toBe("[::1],127.0.0.2,127.0.0.1,localhost.,ollama.localhost,[::ffff:7f00:1]");
  });
  it("不是本机的不动：128.0.0.1、[::2]、localhost.example.com", () => {
    const env: NodeJS.ProcessEnv = {};
    for (const url of ["http://128.0.0.1/v1", "http://[::2]/v1", "http://localhost.example.com/v1", "http://[::ffff:10.0.0.1]/v1"]) keepLoopbackDirect(url, env);
    expect(env).toEqual({});
  });
});

describe.concurrent("真的代理", () => {
  it("设了 HTTP_PROXY 却没开开关：fetch 不经过代理，错误行说明原因并点名开关", async (test) => {
    const proxy = await recordingProxy(test);
    const env = { ...NO_PROXY_ENV, HTTP_PROXY: proxy.url, HARNESS_BASE_URL: `http://${REMOTE}:9/v1`, HARNESS_API_KEY: KEY };
    // step09：连不上是可重试的错误，--retries 0 免得回合层再等 2 + 4 + 8 秒
    const result = await runCliProcess(sandbox(test), ["--retries", "0"], "你好\n", env);
    expect(result.code, result.stderr).toBe(0);
    const line = result.stdout.split("\n").find((l) => l.includes("[错误] 网络错误："));
    expect(line).toContain("设置了 HTTP_PROXY，但 Node 的 fetch 没有用它");
    expect(line).toContain("NODE_USE_ENV_PROXY=1");
    expect(proxy.forwarded).toEqual([]);
  });

  // 没有开关的 Node（如 20）上跑不了：打印原因后跳过
  const why = `Node ${process.version} 没有 NODE_USE_ENV_PROXY / --use-env-proxy（要 22.21 / 24.5 或更新）`;
  if (!nodeHasProxySwitch()) console.warn(`[跳过] 经过代理的三个用例：${why}`);

  it.skipIf(!nodeHasProxySwitch())("NODE_USE_ENV_PROXY=1：发往远端的请求经过代理，回复照常", async (test) => {
    const proxy = await recordingProxy(test);
    const model = await startProviderServer([{ text: "经代理而来" }], { apiKey: KEY });
    test.onTestFinished(() => model.close());
    const port = new URL(model.openaiBaseUrl).port;
    const env = { ...NO_PROXY_ENV, NODE_USE_ENV_PROXY: "1", HTTP_PROXY: proxy.url, HARNESS_BASE_URL: `http://${REMOTE}:${port}/v1`, HARNESS_API_KEY: KEY };
    const result = await runCliProcess(sandbox(test), [], "你好\n", env);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("助手> 经代理而来");
    // 目标是 http:// 时，Node 22、24 用 CONNECT 开隧道，Node 26 把整个请求交给代理转发：两种都是「经过了代理」
    expect(proxy.forwarded).toHaveLength(1);
    expect([`CONNECT ${REMOTE}:${port}`, `POST http://${REMOTE}:${port}/v1/chat/completions`]).toContain(proxy.forwarded[0]);
  });

  it.skipIf(!nodeHasProxySwitch())("NODE_USE_ENV_PROXY=1、HARNESS_BASE_URL 是 http://[::1]：照样直连，代理什么也没收到", async (test) => {
    const proxy = await recordingProxy(test);
    const server = http.createServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.end(sseText([{ data: { choices: [{ delta: { content: "从 IPv6 本机来" }, finish_reason: "stop" }] } }, { data: "[DONE]" }]));
    });
    const listening = await new Promise<boolean>((resolve) => server.once("error", () => resolve(false)).listen(0, "::1", () => resolve(true)));
    if (!listening) return test.skip("这台机器没有 IPv6 的 ::1");
    test.onTestFinished(() => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))));
    const port = (server.address() as AddressInfo).port;
    const env = { ...NO_PROXY_ENV, NODE_USE_ENV_PROXY: "1", HTTP_PROXY: proxy.url, HTTPS_PROXY: proxy.url, HARNESS_BASE_URL: `http://[::1]:${port}/v1`, HARNESS_API_KEY: KEY };
    const result = await runCliProcess(sandbox(test), [], "你好\n", env);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("助手> 从 IPv6 本机来");
    expect(proxy.forwarded).toEqual([]);
  });

  it.skipIf(!nodeHasProxySwitch())("NODE_USE_ENV_PROXY=1、没配密钥：本机的脚本服务器照样直连，代理什么也没收到", async (test) => {
    const proxy = await recordingProxy(test);
    const env = { ...NO_PROXY_ENV, NODE_USE_ENV_PROXY: "1", HTTP_PROXY: proxy.url, HTTPS_PROXY: proxy.url };
    const result = await runCliProcess(sandbox(test), [], "我叫小明\n", env);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("助手> 你好，小明！我记住了。");
    expect(proxy.forwarded).toEqual([]);
  });
});
