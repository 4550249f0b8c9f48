/**
 * npm run provider：它打印的那行环境变量，原样拿去启动 CLI，真的能连上；故障参数真的生效；Ctrl+C 停得下来。
 */

import { spawn } from "node:child_process";
import { expect, it, onTestFinished, vi } from "vitest";

import { runProviderCli } from "scripted-provider";
import { decideReply } from "../src/fake-model.js";
import { triggerOf } from "../src/rules.js";
import { cleanEnv, makeSandbox, removeSandbox, scriptArgs, stepRoot } from "./helpers/cli.js";
import { runCli } from "./helpers/in-process.js";
import { printed } from "./helpers/wait.js";

it("打印的 OpenAI 环境变量行可以直接用；--fail 401 --once 只让第一个请求失败；SIGINT 停止", async () => {
  const dir = makeSandbox();
  onTestFinished(() => removeSandbox(dir));
  const child = spawn(process.execPath, scriptArgs(stepRoot, "src/provider-cli.ts", ["--fail", "401", "--once", "--delay", "0"]), {
    cwd: stepRoot,
    env: cleanEnv(),
    stdio: ["ignore", "pipe", "pipe"],
  });
  onTestFinished(() => {
    child.kill("SIGKILL");
  });
  let stdout = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  const exited = new Promise<number | null>((resolve) => child.on("close", resolve));

  // 形如：HARNESS_API=openai HARNESS_BASE_URL=http://127.0.0.1:<端口>/v1 HARNESS_API_KEY=local npm start
  const line = await printed(child, () => stdout, /^ {2}(HARNESS_API=openai .*) npm start$/m);
  expect(line).toMatch(/^HARNESS_API=openai HARNESS_BASE_URL=http:\/\/127\.0\.0\.1:\d+\/v1 HARNESS_API_KEY=local$/);
  // 环境变量行与「当前故障」那行可能分两次到达：等它，而不是立刻断言
  await printed(child, () => stdout, "当前故障：只对第一个请求回 HTTP 401");
  const env = Object.fromEntries(line.split(" ").map((pair) => pair.split("=") as [string, string]));

  const result = await runCli(dir, [], "我叫小明\n我叫小明\n", env);
  expect(result.code, result.stderr).toBe(0);
  expect(result.stdout).toContain("[错误] HTTP 401：authentication_error：Unauthorized");
  expect(result.stdout).toContain("助手> 你好，小明！我记住了。");

  // 服务器每个请求记一行，带着剧本看到的触发词
  await printed(child, () => stdout, "[#2] POST /v1/chat/completions（触发词：我叫小明）");
  // Windows 不能向别的进程发 SIGINT（child.kill 会直接结束它）：那里只检查到这儿
  if (process.platform === "win32") return;
  child.kill("SIGINT");
  expect(await exited).toBe(0);
  expect(stdout).toContain("本地脚本服务器已停止。");
});

/** 起一个 npm run provider，等它打印 OpenAI 那行环境变量；返回这行解析出的环境变量与它的输出。 */
async function startProviderCli(args: string[]): Promise<{ env: NodeJS.ProcessEnv; printed: (wanted: string) => Promise<string> }> {
  const child = spawn(process.execPath, scriptArgs(stepRoot, "src/provider-cli.ts", args), {
    cwd: stepRoot,
    env: cleanEnv(),
    stdio: ["ignore", "pipe", "pipe"],
  });
  onTestFinished(() => {
    child.kill("SIGKILL");
  });
  let stdout = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  const line = await printed(child, () => stdout, /^ {2}(HARNESS_API=openai .*) npm start$/m);
  return {
    env: Object.fromEntries(line.split(" ").map((pair) => pair.split("=") as [string, string])),
    printed: (wanted) => printed(child, () => stdout, wanted),
  };
}

it("step09：--fail 429 --retry-after-ms 50 --once：CLI 只打印回答，没有错误行（HTTP 层悄悄重试了）", async () => {
  const dir = makeSandbox();
  onTestFinished(() => removeSandbox(dir));
  const provider = await startProviderCli(["--fail", "429", "--retry-after-ms", "50", "--once", "--delay", "0"]);
  await provider.printed("当前故障：只对第一个请求回 HTTP 429（retry-after-ms: 50）");
  const result = await runCli(dir, [], "我叫小明\n", provider.env);
  expect(result.code, result.stderr).toBe(0);
  expect(result.stdout).toContain("助手> 你好，小明！我记住了。");
  expect(result.stdout).not.toContain("[错误]");
  expect(result.stdout).not.toContain("[重试");
  await provider.printed("[#2] POST /v1/chat/completions（触发词：我叫小明）");
});

it("step09：--fail 400 --message <溢出文案> --times 2：错误说明按协议写进正文，CLI 压缩后不再打转", async () => {
  const dir = makeSandbox();
  onTestFinished(() => removeSandbox(dir));
  const message = "prompt is too long: 213462 tokens > 200000 maximum";
  const provider = await startProviderCli(["--fail", "400", "--message", message, "--should-retry", "false", "--times", "2", "--delay", "0"]);
  await provider.printed(`当前故障：只对前 2 个请求回 HTTP 400（x-should-retry: false；错误说明：${message}）`);
  const result = await runCli(dir, [], "一个超长的问题\n我叫小明\n", provider.env);
  expect(result.code, result.stderr).toBe(0);
  expect(result.stdout).toContain(`[错误] HTTP 400：invalid_request_error：${message}`);
  expect(result.stdout).toContain("[压缩失败] 上下文溢出，无法压缩：只剩最后一轮对话，没有可以省略的早先消息");
  // 第二句：第 2 个请求还溢出，省略第一轮后重试一次，第 3 个请求正常回答
  expect(result.stdout).toContain("[压缩] 上下文超出窗口，省略最早的 1 条消息后重试一次");
  expect(result.stdout).toContain("助手> 你好，小明！我记住了。");
});

it.each([
  [["--retry-after-ms", "50"], "--retry-after、--retry-after-ms、--should-retry、--message 只能和 --fail 一起用"],
  [["--fail", "500", "--should-retry", "yes"], "--should-retry 后面只能是 true 或 false，收到的是：yes"],
  [["--fail", "500", "--times", "-1"], "--times 后面需要一个非负整数，收到的是：-1"],
])("step09 的新参数用错：%j → 说明原因与用法，退出码 2", async (args, reason) => {
  // 参数在工具包的 runProviderCli 里解析，出错就 process.exit(2)：在测试进程里调用它，把退出换成抛出，说的话收下来
  const exit = vi.spyOn(process, "exit").mockImplementation(((code?: number) => {
    throw new Exited(code);
  }) as typeof process.exit);
  const said = vi.spyOn(console, "error").mockImplementation(() => undefined);
  onTestFinished(() => {
    exit.mockRestore();
    said.mockRestore();
  });
  await expect(runProviderCli(args, { answer: decideReply, triggerOf })).rejects.toThrow(Exited);
  expect(exit).toHaveBeenCalledWith(2);
  expect(String(said.mock.calls[0]?.[0]).startsWith(`${reason}\n用法：npm run provider --`)).toBe(true);
});

class Exited extends Error {
  constructor(readonly code: number | undefined) {
    super(`exit ${code}`);
  }
}
