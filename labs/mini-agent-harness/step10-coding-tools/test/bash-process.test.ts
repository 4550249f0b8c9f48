/**
 * 进程边界上的 bash：只有这里起 harness 的子进程，因为要测的就是进程边界本身——
 *   - 真的 SIGINT（没有终端时 Ctrl+C 落在进程上）与 SIGTERM（harness 被叫停、退出）；
 *   - harness 进程退出的那一刻（process.exit），还在跑的命令连同整棵树一起结束；
 *   - 真的伪终端：在闸门的问题上按 Ctrl+C，在 sleep 30 的途中按 Ctrl+C。
 * 「什么都没留下」用命令自己记下的 pid 证明（helpers/coding.ts），不靠计时。一个子进程尽量多查几件事。
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it, type TestContext } from "vitest";

import { cleanEnv, makeSandbox, mainArgs, removeSandbox, scriptArgs, stepRoot, withoutProvider } from "./helpers/cli.js";
import { allGone, cleanUp, isWindows, longRunningNode, pidFrom } from "./helpers/coding.js";
import { mustRun, python } from "./helpers/pty-python.js";
import { printed } from "./helpers/wait.js";

if (isWindows) console.warn("[跳过] SIGINT、SIGTERM/SIGHUP 的用例：Windows 不能向别的进程发送这些信号；伪终端的用例：Windows 没有 POSIX 伪终端");

function sandbox(test: TestContext, options: { src?: boolean } = {}): string {
  const dir = makeSandbox(undefined, options);
  test.onTestFinished(() => {
    try {
      removeSandbox(dir);
    } catch (error) {
      // Wine 里被 TerminateProcess 结束的 cmd.exe 有时过一阵才放开它的工作目录；进程都不在了已经由测试本身证明
      if (!(isWindows && (error as NodeJS.ErrnoException).code === "EBUSY")) throw error;
      console.warn(`[提示] 临时目录暂时删不掉（EBUSY），留在系统的临时目录里：${dir}`);
    }
  });
  return dir;
}

/** 起一个 harness 子进程（管道，不是终端），收集输出。 */
function harness(dir: string, args: string[] = []): { child: ChildProcess; stdout: () => string; closed: Promise<number | null> } {
  const child = spawn(process.execPath, mainArgs(dir, args), { cwd: dir, env: cleanEnv({ SCRIPTED_PROVIDER_CHUNK_DELAY_MS: "0" }), stdio: ["pipe", "pipe", "pipe"] });
  let stdout = "";
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr!.resume();
  const closed = new Promise<number | null>((resolve) => child.on("close", (code, signal) => resolve(code ?? (signal ? -1 : null))));
  return { child, stdout: () => stdout, closed };
}

describe.skipIf(isWindows || withoutProvider)("真的信号（没有终端）", () => {
  it("SIGINT：这一轮取消、命令不在了，harness 接着等下一句；SIGTERM：harness 退出（143），后台的进程也不在了", async (test) => {
    const dir = sandbox(test);
    const { child, stdout, closed } = harness(dir);
    child.stdin!.write(`运行 ${longRunningNode("first.pid")}\n`);
    const first = await pidFrom(dir, "first.pid");
    cleanUp([first]);
    child.kill("SIGINT");
    await printed(child, stdout, "[已取消]");
    await allGone([first]);

    const from = stdout().length;
    child.stdin!.write("运行 sleep 100 & echo $! > bg.pid; echo $$ > sh.pid; wait\n");
    const [background, shell] = [await pidFrom(dir, "bg.pid"), await pidFrom(dir, "sh.pid")];
    cleanUp([background, shell]);
    child.kill("SIGTERM");
    expect(await closed).toBe(143);
    await allGone([background, shell]);
    expect(stdout().slice(from)).toContain("[工具调用] bash");
  });
});

describe.skipIf(withoutProvider)("harness 进程退出", () => {
  it("process.exit 的那一刻还在跑的命令，连同它的整棵树一起结束", async (test) => {
    const dir = sandbox(test, { src: true }); // 下面的小程序从副本的 src/ 导入 bash 工具
    // 一个最小的「harness」：起一条不会自己结束的命令，等它记下 pid，就 process.exit
    fs.writeFileSync(
      path.join(dir, "exit-now.ts"),
      [
        'import fs from "node:fs";',
        'import { bashTool } from "./src/tools/bash.js";',
        "void bashTool.execute({ command: process.argv[2] }, { cwd: process.cwd() });",
        'const timer = setInterval(() => { if (fs.existsSync("child.pid") && fs.readFileSync("child.pid", "utf8") !== "") { clearInterval(timer); process.exit(0); } }, 5);',
        "",
      ].join("\n"),
    );
    const child = spawnSync(process.execPath, scriptArgs(dir, "exit-now.ts", [longRunningNode("child.pid")]), { cwd: dir, env: cleanEnv(), encoding: "utf8", timeout: 60_000 });
    expect(child.status, child.stderr).toBe(0);
    const pid = await pidFrom(dir, "child.pid");
    cleanUp([pid]);
    await allGone([pid]);
  });
});

// ── 伪终端 ─────────────────────────────────────────────────────────
const driver = path.join(stepRoot, "test", "helpers", "pty_driver.py");
if (!python && !mustRun && !isWindows) console.warn("[跳过] 伪终端测试：找不到带 pty 模块的 python3");

describe.skipIf((!python && !mustRun) || withoutProvider)("真的伪终端", () => {
  beforeAll(() => {
    if (!python) throw new Error("CI=true 时伪终端测试不许跳过：找不到带 pty 模块的 python3（.ci/run 会先用 apt 装上 python3）");
  });

  it("闸门的问题上按 Ctrl+C：不运行、这一轮取消；允许之后 sleep 30 途中按 Ctrl+C：回到提示符，什么都没留下", async (test) => {
    const dir = sandbox(test);
    const command = "运行 sleep 30 & echo $! > sleep.pid; echo $$ > sh.pid; wait\r";
    const script = [
      { expect: "你> " },
      { send: command },
      { expect: "[确认] 允许运行 bash？" },
      { send: "\u0003" },
      { expect: "[已取消]" },
      { expect: "你> " },
      { send: command },
      { expect: "[确认] 允许运行 bash？" },
      { send: "y\r" },
      { file: path.join(dir, "sleep.pid") },
      { file: path.join(dir, "sh.pid") },
      { send: "\u0003" },
      { expect: "[已取消]" },
      { expect: "你> " },
      { send: "\u0003" },
      { expect: "再见。" },
    ];
    const result = spawnSync(python!, [driver, JSON.stringify(script), process.execPath, ...mainArgs(dir, ["--extension", "extensions/permission-gate.ts"])], {
      cwd: dir,
      encoding: "utf8",
      timeout: 110_000,
      env: cleanEnv({ SCRIPTED_PROVIDER_CHUNK_DELAY_MS: "0" }),
    });
    if (result.status !== 0) throw new Error(`驱动脚本失败：${result.stderr}`);
    const report = JSON.parse(result.stdout) as { failure: string | null; exitCode: number | null; transcript: string };
    const pids = [Number(fs.readFileSync(path.join(dir, "sleep.pid"), "utf8")), Number(fs.readFileSync(path.join(dir, "sh.pid"), "utf8"))];
    cleanUp(pids);
    expect(report.failure, report.transcript).toBeNull();
    expect(report.exitCode).toBe(0);
    // 第一次：问题上按 Ctrl+C，命令根本没有运行（它会写下的 pid 是第二次的）
    expect(report.transcript).toContain("[工具结果] bash → 这一轮已取消：扩展 permission-gate.ts 还没回答，工具没有执行（出错）");
    // 第二次：允许，途中 Ctrl+C：bash 自己交回结果，说它结束了整棵进程树
    expect(report.transcript).toContain("[工具结果] bash → （没有输出） …（共 3 行）（出错）");
    await allGone(pids);
  });
});
