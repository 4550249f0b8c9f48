/**
 * 真实 CLI 进程的测试：通过管道喂输入，检查输出、退出码与会话文件。
 * 每个测试在自己的临时副本里运行（见 helpers/cli.ts），所以可以并行。
 *
 * step07 已经在 CLI 层面测过的会话恢复细节（半行、坏行、--session、参数用法）这里不再重复：
 * 那些代码（session.ts 与 main.ts 的参数解析）没有变。这里只测这一步新加的东西：
 * 模型服务怎么选、真实的流怎么显示、密钥去了哪里、Ctrl+C 是否真的断开了 HTTP 连接。
 */

import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it, type TestContext } from "vitest";

import { startProviderServer, type ProviderServer, type Script } from "scripted-provider";
import { cleanEnv, mainArgs, makeSandbox, removeSandbox, runCliWithoutProvider } from "./helpers/cli.js";
import { runCli } from "./helpers/in-process.js";
import { ANTHROPIC_ANSWER, ANTHROPIC_CALC, OPENAI_ANSWER, OPENAI_UPPER } from "./helpers/recordings.js";
import { eventually, printed } from "./helpers/wait.js";

/** 一把很好认的假密钥：它一旦出现在输出或文件里，断言立刻能发现。 */
const KEY = "sk-proj-TEST-ONLY-7f3a9c2e51d84b06";
const LOCAL_LINE = "（未配置 API Key：使用本地脚本化的模型服务，离线运行）";

/**
 * 每个测试自己的临时副本；测试结束时删除。
 * 并行的测试必须用各自测试上下文里的 onTestFinished，全局的那个分不清是哪个测试。
 */
function sandbox(test: TestContext, name?: string): string {
  const dir = makeSandbox(name);
  test.onTestFinished(() => removeSandbox(dir));
  return dir;
}

/** 测试自己起的模型服务器，只认 KEY；测试结束时关闭。 */
async function serve(test: TestContext, script: Script): Promise<ProviderServer> {
  const server = await startProviderServer(script, { apiKey: KEY });
  test.onTestFinished(() => server.close());
  return server;
}

const sessionFiles = (dir: string): string[] => {
  const sessions = path.join(dir, ".sessions");
  return fs.existsSync(sessions) ? fs.readdirSync(sessions).map((name) => path.join(sessions, name)) : [];
};
const readSession = (dir: string): string => sessionFiles(dir).map((file) => fs.readFileSync(file, "utf8")).join("");

describe.concurrent("选择模型服务", () => {
  it("没配密钥也没配地址：用本地脚本服务器并只说一行；Ctrl+D 退出，会话已保存；--continue 接着聊", async (test) => {
    const dir = sandbox(test);
    const first = await runCli(dir, [], "我叫小明\n");
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout.split("\n").filter((line) => line.includes("本地脚本"))).toEqual([LOCAL_LINE]);
    expect(first.stdout).not.toMatch(/127\.0\.0\.1|localhost|:\d{4,5}\b/); // 端口每次都不同，不能出现
    expect(first.stdout).toContain("助手> 你好，小明！我记住了。");
    expect(first.stdout.trimEnd().endsWith("再见。")).toBe(true);
    expect(readSession(dir).trimEnd().split("\n")).toHaveLength(2);

    // 恢复的历史随请求发给本地服务器，剧本从里面找到名字；这次换成 Anthropic 协议
    const second = await runCli(dir, ["--continue"], "我叫什么\n", { HARNESS_API: "anthropic" });
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toContain(LOCAL_LINE);
    expect(second.stdout).toContain("：2 条消息");
    expect(second.stdout).toContain("助手> 你叫小明。");
  });

  it("单独复制出来的步骤目录（找不到 labs/scripted-provider）：没配密钥时一行说明怎么办，退出码 1，不创建会话文件；路径里有 # 也照常加载扩展", async (test) => {
    // 目录名里带 #：路径拼错（如 "file://" + 路径，# 之后成了 URL 的片段）的代码在这里就坏。真实进程的加载器才测得了它（见 helpers/cli.ts 的 makeSandbox）
    const dir = sandbox(test, "学 C# 的 100% 笔记-");
    fs.unlinkSync(path.join(dir, "node_modules", "scripted-provider")); // 只删副本里的链接，工具包本身不动
    // 打包时不带工具包（它留到运行时再找）：打进去的话，「找不到」就测不到了。扩展在找服务器之前加载：加载失败会多一行
    const result = await runCliWithoutProvider(dir, ["--extension", "extensions/logger.ts"], "我叫小明\n");
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toBe(
      "找不到本地脚本服务器（仓库里的 labs/scripted-provider/）：请在完整的仓库里运行（根目录 npm ci），或者设置 HARNESS_API_KEY 连真实模型。",
    );
    expect(sessionFiles(dir)).toEqual([]);
  });

  it("HARNESS_API 写错：中文错误，退出码 2，不创建会话文件", async (test) => {
    const dir = sandbox(test);
    const result = await runCli(dir, [], "我叫小明\n", { HARNESS_API: "bogus" });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("HARNESS_API 只能是 openai 或 anthropic，收到的是：bogus");
    expect(result.stdout).toBe("");
    expect(sessionFiles(dir)).toEqual([]);
  });
});

describe.concurrent("指向一个真实格式的模型服务（测试服务器回放录制的流）", () => {
  it("OpenAI：文字、分片到达的工具调用、第二轮回答、401；密钥不出现在输出与会话文件里", async (test) => {
    const dir = sandbox(test);
    const server = await serve(test, [
      { raw: OPENAI_UPPER },
      { raw: OPENAI_ANSWER },
      // 有的服务会把收到的密钥写进错误信息
      { httpError: 401, body: { error: { message: `Incorrect API key provided: ${KEY}.`, type: "invalid_request_error", code: "invalid_api_key" } } },
    ]);
    const env = { HARNESS_BASE_URL: server.openaiBaseUrl, HARNESS_API_KEY: KEY, HARNESS_MODEL: "gpt-4o-mini" };
    const result = await runCli(dir, ["--extension", "extensions/logger.ts", "--extension", "missing.ts"], "把 hello world 转成大写\n再来一次\n", env);

    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`模型：gpt-4o-mini（OpenAI Chat Completions，${server.openaiBaseUrl}/chat/completions）`);
    expect(result.stdout).not.toContain(LOCAL_LINE);
    expect(result.stdout).toContain('助手> 好的，我来转换。\n[工具调用] upper {"text":"hello world"}\n  [扩展] 第 1 次工具调用：upper\n[工具结果] upper → HELLO WORLD');
    expect(result.stdout).toContain("助手> 转好了：HELLO WORLD\n[第 2 轮结束]");
    expect(result.stdout).toContain("[错误] HTTP 401：invalid_request_error：Incorrect API key provided: ***.");
    expect(result.stderr).toContain(`加载扩展失败 missing.ts：找不到 ${path.join(fs.realpathSync(dir), "missing.ts")}（`); // step07 的行为照旧

    // 服务器按 KEY 检查过每个请求（不对会回 401），记录里只剩抹掉的值
    expect(server.requests.map((r) => r.headers.authorization)).toEqual(["Bearer ***", "Bearer ***", "Bearer ***"]);
    const second = server.requests[1]?.body as { messages: unknown[] };
    expect(second.messages.at(-1)).toEqual({ role: "tool", tool_call_id: "call_Qx7pLm2", content: "HELLO WORLD" });
    for (const text of [result.stdout, result.stderr, readSession(dir)]) expect(text).not.toContain(KEY);
    expect(readSession(dir)).toContain('"usage":{"input":142,"output":21,"cacheRead":0,"cacheWrite":0}');
  });

  it("Anthropic（密钥来自 ANTHROPIC_API_KEY）：tool_use 的参数碎片拼回，工具真的执行", async (test) => {
    const dir = sandbox(test);
    const server = await serve(test, [{ raw: ANTHROPIC_CALC }, { raw: ANTHROPIC_ANSWER }]);
    const env = { HARNESS_API: "anthropic", HARNESS_BASE_URL: server.anthropicBaseUrl, ANTHROPIC_API_KEY: KEY };
    const result = await runCli(dir, [], "6 乘 7 是多少\n", env);

    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`（Anthropic Messages，${server.anthropicBaseUrl}/v1/messages）`);
    expect(result.stdout).toContain('助手> 我用 calc 算一下。\n[工具调用] calc {"expression":"6*7"}\n[工具结果] calc → 42');
    expect(result.stdout).toContain("助手> 6 乘 7 等于 42。");
    expect(server.requests.map((r) => r.headers["x-api-key"])).toEqual(["***", "***"]);
    const second = server.requests[1]?.body as { messages: unknown[] };
    expect(second.messages.at(-1)).toEqual({
      role: "user",
      content: [{ type: "tool_result", tool_use_id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6", content: "42", is_error: false }],
    });
    for (const text of [result.stdout, result.stderr, readSession(dir)]) expect(text).not.toContain(KEY);
  });
});

const noSignals = process.platform === "win32";
if (noSignals) console.warn("[跳过] SIGINT 测试：Windows 不能向别的进程发送 SIGINT（child.kill 会直接结束它）");

describe.skipIf(noSignals)("SIGINT（没有终端时信号直接落到 process 上）", () => {
  it("回复途中：取消这一轮，服务器看到连接被客户端关闭；空闲时：再见。并以 0 退出", async (test) => {
    const dir = sandbox(test);
    // 发出 4 个事件（两段文字）后不再出声，连接一直开着：不取消的话这一轮永远结束不了
    const server = await serve(test, [{ text: "一二三四五六七八", hangAfterChunks: 4 }]);
    const env = cleanEnv({ HARNESS_BASE_URL: server.openaiBaseUrl, HARNESS_API_KEY: KEY });
    // 不经过 tsx：这里测的是信号落到 CLI 上，tsx 那条路由 pty.test.ts 的一个用例与 golden.test.ts 覆盖
    const child = spawn(process.execPath, mainArgs(dir, []), { cwd: dir, env, stdio: ["pipe", "pipe", "pipe"] });
    test.onTestFinished(() => {
      child.kill("SIGKILL");
    });
    let stdout = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
    const waitFor = async (text: string, from = 0): Promise<void> => void (await printed(child, () => stdout, text, from));

    await waitFor("你> ");
    child.stdin.write("讲个故事\n");
    await waitFor("助手> 一二三四");
    child.kill("SIGINT");
    await waitFor("[已取消]");
    await waitFor("你> ", stdout.indexOf("[已取消]"));
    await eventually(() => expect(server.disconnects).toEqual([{ request: 0, path: "/v1/chat/completions", closedByClient: true }]));
    expect(stdout).not.toContain("再见。");
    child.kill("SIGINT");
    expect(await exited).toBe(0);
    expect(stdout).toContain("再见。");
    // 半截回复也进了会话文件
    const last = JSON.parse(readSession(dir).trimEnd().split("\n").at(-1)!);
    expect(last).toMatchObject({ id: "e2", parentId: "e1", message: { role: "assistant", stopReason: "aborted", content: [{ type: "text", text: "一二三四" }] } });
  });
});
