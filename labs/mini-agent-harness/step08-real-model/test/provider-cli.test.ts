/**
 * npm run provider：它打印的那行环境变量，原样拿去启动 CLI，真的能连上；故障参数真的生效；Ctrl+C 停得下来。
 */

import { spawn } from "node:child_process";
import { expect, it, onTestFinished } from "vitest";

import { cleanEnv, makeSandbox, removeSandbox, scriptArgs, stepRoot, withoutProvider } from "./helpers/cli.js";
import { runCli } from "./helpers/in-process.js";
import { printed } from "./helpers/wait.js";

it.skipIf(withoutProvider)("打印的 OpenAI 环境变量行可以直接用；--fail 401 --once 只让第一个请求失败；SIGINT 停止", async () => {
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
