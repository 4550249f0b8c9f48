/**
 * bash：在测试进程里直接调用 execute，它起的是真的 shell（/bin/sh；Windows 上是 cmd.exe）。
 * 「什么都没留下」用命令自己记下的 pid 来证明（helpers/coding.ts），不靠计时。
 * Ctrl+C 经过整个 harness 的用例在 coding-cli.test.ts（测试进程里的 runCli）与 bash-process.test.ts（真的信号、伪终端）。
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";

import { SECRET_NAMES, shellEnv } from "../../src/guards/shell-env.js";
import { bashTool, timeoutMs } from "../../src/tools/bash.js";
import type { ToolOutput } from "../../src/tools/types.js";
import { allGone, cleanUp, isWindows, longRunningNode, pidFrom, tempProject } from "../helpers/coding.js";

if (isWindows) console.warn("[跳过] bash 的后台进程用例：Windows 上 shell 退出后 taskkill 找不到它留下的后台进程（见 WINDOWS.md）");

const run = (cwd: string, command: string, timeout?: number, signal?: AbortSignal) =>
  bashTool.execute(timeout === undefined ? { command } : { command, timeout }, { cwd, signal }) as Promise<ToolOutput>;

describe("bash：输出与退出码", () => {
  it("stdout 与 stderr 都收下，空一行，最后是退出码 0", async () => {
    const dir = tempProject();
    const result = await run(dir, `node -e "console.log('到 stdout'); console.error('到 stderr')"`);
    const [output, status] = result.content.split("\n\n");
    expect(output!.split("\n").sort()).toEqual(["到 stderr", "到 stdout"].sort()); // 两根管道之间的先后按到达，不保证
    expect(status).toBe("[退出码 0]");
    expect(result.isError).toBeUndefined();
  });

  it("非 0 退出码：写进结果，算出错", async () => {
    expect(await run(tempProject(), "exit 3")).toEqual({ content: "（没有输出）\n\n[退出码 3]", isError: true });
  });

  it("工作目录就是项目目录（目录名里有空格和汉字）", async () => {
    const dir = tempProject();
    const result = await run(dir, `node -e "console.log(process.cwd())"`);
    expect(fs.realpathSync(result.content.split("\n")[0]!)).toBe(fs.realpathSync(dir));
  });

  it("标准输入是空的：等输入的命令立刻读到结尾，不会卡住", async () => {
    const result = await run(tempProject(), `node -e "process.stdin.on('data', () => {}).on('end', () => console.log('读到了结尾'))"`);
    expect(result.content).toBe("读到了结尾\n\n[退出码 0]");
  });

  it("shell 起不来（工作目录不存在）：一句错误，不抛异常", async () => {
    const result = await run(path.join(tempProject(), "没有这个目录"), "echo hi");
    expect(result).toMatchObject({ isError: true, content: expect.stringContaining("无法启动") });
  });

  it("10 MB 的输出：只留最后 2000 行，后面一行说截了什么、不带路径", async () => {
    const dir = tempProject();
    const result = await run(dir, `node -e "const chunk = 'abcdefghi\\n'.repeat(65536); for (let i = 0; i < 16; i++) process.stdout.write(chunk)"`);
    const total = 16 * 65536;
    expect(result.content.endsWith(`\n\n[输出太长，只留最后 2000 行：第 ${total - 1999}–${total} 行，共 ${total} 行]\n\n[退出码 0]`)).toBe(true);
    expect(result.content.split("\n").filter((line) => line === "abcdefghi")).toHaveLength(2000);
    expect(result.content).not.toContain(dir);
  });
});

describe("bash：环境变量里没有密钥", () => {
  it("shellEnv 去掉三个密钥，其余原样；Windows 上不分大小写", () => {
    const env = { PATH: "/bin", HARNESS_API_KEY: "k1", OPENAI_API_KEY: "k2", ANTHROPIC_API_KEY: "k3", harness_api_key: "k4", HARNESS_MODEL: "m" };
    expect(shellEnv(env, "linux")).toEqual({ PATH: "/bin", harness_api_key: "k4", HARNESS_MODEL: "m" });
    expect(shellEnv(env, "win32")).toEqual({ PATH: "/bin", HARNESS_MODEL: "m" });
    expect(SECRET_NAMES).toEqual(["HARNESS_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_API_KEY"]);
  });

  it("harness 的进程里设了密钥，命令里 echo 它们什么也打印不出来", async () => {
    const saved = SECRET_NAMES.map((name) => process.env[name]);
    for (const name of SECRET_NAMES) process.env[name] = `sk-${name}-不该被看见`;
    try {
      const command = isWindows ? "echo [%HARNESS_API_KEY%][%OPENAI_API_KEY%][%ANTHROPIC_API_KEY%]" : 'echo "[$HARNESS_API_KEY][$OPENAI_API_KEY][$ANTHROPIC_API_KEY]"';
      const result = await run(tempProject(), command);
      // cmd.exe 里没定义的变量原样留着 %…%，sh 里是空的：哪种都不含密钥
      expect(result.content.split(/\r?\n/)[0]).toBe(isWindows ? "[%HARNESS_API_KEY%][%OPENAI_API_KEY%][%ANTHROPIC_API_KEY%]" : "[][][]");
      expect(result.content).not.toContain("不该被看见");
    } finally {
      SECRET_NAMES.forEach((name, i) => (saved[i] === undefined ? delete process.env[name] : (process.env[name] = saved[i])));
    }
  });
});

describe("bash：整棵进程树结束", () => {
  it("timeout 到了：结果说超时，命令（连同它的子进程）不在了", async () => {
    // 到点由测试来拨：命令真的跑起来、写下 pid 之后才让 0.5 秒过去。用真的时钟，慢机器（Wine）上 node 还没起来就到点了
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    try {
      const dir = tempProject();
      const done = run(dir, longRunningNode("child.pid"), 0.5);
      const pid = await pidFrom(dir, "child.pid");
      cleanUp([pid]);
      vi.advanceTimersByTime(500);
      const result = await done;
      expect(result).toEqual({ content: "（没有输出）\n\n[超时：0.5 秒到了，已结束整个进程树]", isError: true });
      await allGone([pid]);
    } finally {
      vi.useRealTimers();
    }
  });

  it("取消（Ctrl+C 传进来的 signal）：结果说已取消，命令不在了", async () => {
    const dir = tempProject();
    const controller = new AbortController();
    const done = run(dir, longRunningNode("child.pid"), undefined, controller.signal);
    const pid = await pidFrom(dir, "child.pid");
    cleanUp([pid]);
    controller.abort();
    expect(await done).toEqual({ content: "（没有输出）\n\n[已取消：已结束整个进程树]", isError: true });
    await allGone([pid]);
  });

  it.skipIf(isWindows)("sleep 100 & echo started（timeout 1）：立刻返回，后台的 sleep 也不在了", async () => {
    const dir = tempProject();
    const result = await run(dir, "sleep 100 & echo $! > sleep.pid; echo started", 1);
    const pid = await pidFrom(dir, "sleep.pid");
    cleanUp([pid]);
    expect(result).toEqual({ content: "started\n\n[退出码 0]" });
    await allGone([pid]);
  });

  it("已经取消了：不起 shell", async () => {
    const controller = new AbortController();
    controller.abort();
    const dir = tempProject();
    expect(await run(dir, "echo hi > ran.txt", undefined, controller.signal)).toEqual({ content: "命令没有运行：这一轮已经取消", isError: true });
    expect(fs.existsSync(path.join(dir, "ran.txt"))).toBe(false);
  });
});

describe("bash：timeout 的范围", () => {
  it.each([0, -1, Number.NaN, Number.POSITIVE_INFINITY, 2_147_484, "5"])("%s 不行：一句说明", (value) => {
    expect(timeoutMs(value)).toBe(`timeout 以秒计，必须是大于 0、不超过 2147483.647 的数，收到的是 ${String(value)}`);
  });

  it("合理的值换成毫秒；不给就是不限时", () => {
    expect([timeoutMs(1), timeoutMs(0.25), timeoutMs(2147483.647), timeoutMs(undefined)]).toEqual([1000, 250, 2147483647, undefined]);
  });

  it("不合理的 timeout：命令不运行", async () => {
    const dir = tempProject();
    const result = await run(dir, "echo hi > ran.txt", -1);
    expect(result.isError).toBe(true);
    expect(fs.existsSync(path.join(dir, "ran.txt"))).toBe(false);
  });
});
