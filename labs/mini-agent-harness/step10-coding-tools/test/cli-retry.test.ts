/**
 * step09 的 CLI（在测试进程里跑，见 helpers/in-process.ts）、真实的本地 HTTP 服务器。
 *
 *   - 三条「完成标准」：429 + retry-after-ms 50 一次 → 只看到回答；retry-after 120 → 立刻报错并点名 120 秒；
 *     400「prompt is too long」→ 不打转，至多压缩一次就给出清楚的错误；
 *   - --retries / --model-timeout / --tool-timeout：横幅里的值、坏值的用法错误（退出码 2）、真的生效；
 *   - Ctrl+C（SIGINT）落在三种等待上：HTTP 层的退避、回合层的退避、挂住的工具，都立刻回到提示符。
 * 计时只用宽松的上限（证明「没有干等」），不断言具体用了多久。
 */

import fs from "node:fs";
import path from "node:path";
import { describe, expect, it, type TestContext } from "vitest";

import { startProviderServer, type ProviderServer, type Script } from "scripted-provider";
import { makeSandbox, removeSandbox } from "./helpers/cli.js";
import { runCli, startCli } from "./helpers/in-process.js";
import { until } from "./helpers/wait.js";

const KEY = "sk-proj-TEST-ONLY-step09-retry";
const OVERFLOW = "prompt is too long: 213462 tokens > 200000 maximum";
const DEFAULT_BANNER = "重试：最多 3 次；模型超时：300000ms；工具超时：30000ms";
const USAGE = "用法：npm start -- [--continue | --session <文件>] [--extension <文件>]... [--retries <次数>] [--model-timeout <毫秒>] [--tool-timeout <毫秒>]";

function sandbox(test: TestContext): string {
  const dir = makeSandbox();
  test.onTestFinished(() => removeSandbox(dir));
  return dir;
}

async function serve(test: TestContext, script: Script): Promise<{ server: ProviderServer; env: NodeJS.ProcessEnv }> {
  const server = await startProviderServer(script, { apiKey: KEY });
  test.onTestFinished(() => server.close());
  return { server, env: { HARNESS_BASE_URL: server.openaiBaseUrl, HARNESS_API_KEY: KEY } };
}

const lines = (text: string, prefix: string): string[] => text.split("\n").filter((line) => line.startsWith(prefix));
const readSession = (dir: string): string[] => {
  const sessions = path.join(dir, ".sessions");
  return fs.readdirSync(sessions).flatMap((name) => fs.readFileSync(path.join(sessions, name), "utf8").trimEnd().split("\n"));
};

describe.concurrent("完成标准：对着三种服务器行为", () => {
  // 两种 429 放进同一个 CLI 会话（一句一种）：少起一个进程（每个约 0.3 秒 CPU），两段输出按「第 1 轮结束」分开检查
  it("429 + retry-after-ms: 50 只有一次：只打印回答；429 + retry-after: 120：立刻失败，错误行点名 120 秒，不重试", async (test) => {
    const dir = sandbox(test);
    const { server, env } = await serve(test, [
      { httpError: 429, headers: { "retry-after-ms": "50" } },
      { text: "你好，小明！" },
      { httpError: 429, headers: { "retry-after": "120" } },
      { text: "用不到" },
    ]);
    // 不比时间：测试的上限（120 秒）之内，真的去等 120 秒就会超时失败
    const result = await runCli(dir, [], "我叫小明\n再说一遍\n", env);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.split("\n")).toContain(DEFAULT_BANNER); // 横幅里是默认值
    const end = result.stdout.indexOf("[第 1 轮结束]");
    expect(end, result.stdout).toBeGreaterThan(0);
    const [first, second] = [result.stdout.slice(0, end), result.stdout.slice(end)];
    // 第一句：HTTP 层悄悄等了 50ms 重试，没有错误行也没有重试行
    expect(result.stdout).toContain("助手> 你好，小明！\n[第 1 轮结束]");
    expect(lines(first, "[错误]")).toEqual([]);
    expect(lines(first, "[重试")).toEqual([]);
    // 第二句：要等 120 秒，超过上限，直接报错
    expect(lines(second, "[错误]")).toEqual([
      "[错误] 服务器要求等待 120 秒，超过上限 60 秒，放弃重试：HTTP 429：rate_limit_error：Too Many Requests",
    ]);
    expect(lines(second, "[重试")).toEqual([]);
    // 第一句 2 个请求（429 + 重试），第二句只有 1 个
    expect(server.requests).toHaveLength(3);
  });

  // 只有一轮就溢出（没有可省略的，一个请求之后就报错）的 CLI 用例在 provider-cli.test.ts 里
  it("400 prompt is too long，有历史：压缩一次、重跑一次，再溢出就停下——不打转", async (test) => {
    const dir = sandbox(test);
    // 第 1 个请求正常回答，之后每个请求都溢出
    const { server, env } = await serve(test, (_request, index) => (index === 0 ? { text: "你好！" } : { httpError: 400, message: OVERFLOW }));
    // 顺带用上两个时限允许的最大值（flags-range.test.ts 的「正好 2147483647」）：省一个进程，它们不影响溢出的处理
    const max = ["--model-timeout", "2147483647", "--tool-timeout", "2147483647"];
    const result = await runCli(dir, max, "我叫小明\n帮我算 1+1\n", env);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("模型超时：2147483647ms；工具超时：2147483647ms"); // 正好上限：接受
    expect(result.stdout).toContain("助手> 你好！"); // 照常回复
    expect(lines(result.stdout, "[压缩")).toEqual([
      "[压缩] 上下文超出窗口，省略最早的 2 条消息后重试一次",
      "[压缩失败] 压缩并重试一次之后仍然超出上下文窗口。请缩短输入，或换一个上下文窗口更大的模型。",
    ]);
    expect(lines(result.stdout, "[错误]")).toHaveLength(2);
    expect(lines(result.stdout, "[重试")).toEqual([]); // 溢出不走退避重试
    expect(server.requests).toHaveLength(3);
    // 压缩后的那个请求：一条说明 + 用户这句
    const sent = (server.requests[2]?.body as { messages: Array<{ role: string; content: string }> }).messages;
    expect(sent).toEqual([
      { role: "user", content: "（早先的 2 条消息因超出上下文窗口已被省略）" },
      { role: "user", content: "帮我算 1+1" },
    ]);
    // 压缩只动运行时的上下文：会话文件里每条消息都在（2 条历史 + 用户 + 两次溢出的失败回复）
    expect(readSession(dir)).toHaveLength(5);
  });
});

describe.concurrent("--retries / --model-timeout / --tool-timeout", () => {
  // 三种典型的：负数、看着像数其实不是（1e3 会被 Number 接受）、缺值
  it.each([
    [["--retries", "-1"], "--retries 后面需要一个非负整数，收到的是：-1"],
    [["--model-timeout", "1e3"], "--model-timeout 后面需要一个非负整数，收到的是：1e3"],
    [["--tool-timeout", "--retries", "2"], "--tool-timeout 后面需要一个非负整数"],
  ])("%j：说明原因与用法，退出码 2，不创建会话文件", async (args, reason) => {
    const dir = makeSandbox();
    try {
      const result = await runCli(dir, args, "我叫小明\n");
      expect(result.code).toBe(2);
      expect(result.stderr).toBe(`${reason}\n${USAGE}\n`);
      expect(result.stdout).toBe("");
      expect(fs.existsSync(path.join(dir, ".sessions"))).toBe(false);
    } finally {
      removeSandbox(dir);
    }
  });

  it("--tool-timeout：挂住的工具被掐断，超时结果交给模型，对话接着往下走", async (test) => {
    const dir = sandbox(test);
    const result = await runCli(dir, ["--extension", "extensions/sleep.ts", "--tool-timeout", "100"], "睡一会 60000\n我叫小明\n");
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.split("\n")).toContain("重试：最多 3 次；模型超时：300000ms；工具超时：100ms");
    expect(result.stdout).toContain("[工具调用] sleep {\"ms\":60000}");
    expect(result.stdout).toContain("  [扩展] sleep 收到取消信号，提前停下（原定 60000ms）");
    expect(result.stdout).toContain("[工具结果] sleep → 工具 sleep 执行超时（100ms）（出错）");
    expect(result.stdout).toContain("助手> 工具出错了：工具 sleep 执行超时（100ms）");
    expect(result.stdout).toContain("助手> 你好，小明！我记住了。");
  });

  it("--model-timeout：服务器一言不发，到点变成一行错误；--retries 0 不重试；横幅里 0 显示为不限时；之后照常回到提示符", async (test) => {
    const dir = sandbox(test);
    const { server, env } = await serve(test, [{ hang: true }]);
    // 只问一句：服务器永远不回答，所以不管机器多忙，结局都是恰好一次超时。
    // （超时之后下一次调用照常成功，由 guard.test.ts 用假时钟证明：真时钟下的 300ms 没法替它保证）
    const result = await runCli(dir, ["--model-timeout", "300", "--retries", "0", "--tool-timeout", "0"], "我叫小明\n", env);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.split("\n")).toContain("重试：最多 0 次；模型超时：300ms；工具超时：不限时");
    expect(lines(result.stdout, "[错误]")).toEqual(["[错误] 模型调用超时（300ms）"]);
    expect(lines(result.stdout, "[重试")).toEqual([]);
    expect(result.stdout.trimEnd().endsWith("再见。")).toBe(true); // 超时之后回到提示符，Ctrl+D 正常退出
    // 不重试：至多一个请求（机器很忙时，300ms 可能在请求到达服务器之前就到了，那就是 0 个）
    expect(server.requests.length).toBeLessThanOrEqual(1);
  });
});

describe("Ctrl+C 落在三种等待上", () => {
  // 在测试进程里跑（helpers/in-process.ts），Ctrl+C 是交给程序的 SIGINT 事件：这里测的是三种等待被取消；
  // 真的信号落到真的进程上，由 cli.test.ts 的 SIGINT 用例与伪终端测试（pty.test.ts）证明
  it("HTTP 层退避、回合层退避、挂住的工具：都立刻回到提示符，且不再发请求", async (test) => {
    const dir = sandbox(test);
    const { server, env } = await serve(test, [
      // 第一句：503，服务器要求等 30 秒（在 60 秒上限之内，HTTP 层会等）
      { httpError: 503, headers: { "retry-after-ms": "30000" } },
      // 第二句：x-should-retry: false 让 HTTP 层不重试，交给回合层等 2 s、4 s……
      { httpError: 500, headers: { "x-should-retry": "false" } },
      { httpError: 500, headers: { "x-should-retry": "false" } },
      // 第三句：调用一个要睡一分钟的工具
      { text: "我用 sleep 等一等。", toolCalls: [{ name: "sleep", arguments: { ms: 60_000 } }] },
      { text: "用不到" },
    ]);
    const cli = startCli(dir, ["--extension", "extensions/logger.ts", "--extension", "extensions/sleep.ts"], env);
    test.onTestFinished(() => {
      cli.stdin.end(); // 失败时也让程序收场
    });
    const waitFor = (text: string, from = 0): Promise<void> => cli.printed(text, from);
    /** 按 Ctrl+C，等到 [已取消] 和新的提示符；返回从按下到看见 [已取消] 用了多久。 */
    const interrupt = async (): Promise<number> => {
      const from = cli.stdout().length;
      const started = Date.now();
      cli.interrupt();
      await waitFor("[已取消]", from);
      const elapsed = Date.now() - started;
      await waitFor("你> ", cli.stdout().indexOf("[已取消]", from));
      return elapsed;
    };

    await waitFor("你> ");
    // 1. HTTP 层的退避：服务器收到请求、回了 503 之后按下
    cli.stdin.write("第一句\n");
    await until(() => server.requests.length === 1, "服务器收到第一句的请求", 60_000);
    expect(await interrupt()).toBeLessThan(25_000); // 宽松上限：小于 30 秒（机器再忙也够）
    expect(lines(cli.stdout(), "[错误]")).toEqual([]); // HTTP 层的取消就是取消，不是错误

    // 2. 回合层的退避：第二次等待（4000ms）开始时按下
    cli.stdin.write("第二句\n");
    await waitFor("[重试] 第 2/3 次，4000ms 后重试：HTTP 500：api_error：Internal Server Error");
    await interrupt(); // 不比时间：下面的 [重试取消] 与「只有 3 个请求」证明那 4 秒没有等完
    expect(cli.stdout()).toContain("[重试取消] 已尝试 2 次，第 2 次重试已取消\n  [扩展] 观察到一次取消\n[已取消]");
    expect(server.requests).toHaveLength(3);

    // 3. 挂住的工具：工具开始执行（扩展记下了这次调用）之后按下
    cli.stdin.write("睡一会 60000\n");
    await waitFor("  [扩展] 第 1 次工具调用：sleep");
    // 这一行打印在工具开始执行之前；工具紧接着在同一串微任务里开始。等这一串跑完（setImmediate 排在全部微任务之后），
    // 按下的 Ctrl+C 才落在「工具正在执行」上，而不是落在它开始之前（那是第 3 个取消点，另有测试）
    await new Promise((resolve) => setImmediate(resolve));
    expect(await interrupt()).toBeLessThan(25_000); // 宽松上限：远小于 60 秒（机器再忙也够）
    expect(cli.stdout()).toContain("  [扩展] sleep 收到取消信号，提前停下（原定 60000ms）\n[工具结果] sleep → 工具 sleep 被取消（出错）");
    expect(server.requests).toHaveLength(4); // 取消之后没有下一轮

    cli.interrupt(); // 空闲时：退出
    const { code, stdout } = await cli.done;
    expect(code).toBe(0);
    expect(stdout.trimEnd().endsWith("再见。")).toBe(true);
  });
});
