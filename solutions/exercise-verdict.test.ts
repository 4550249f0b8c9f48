/**
 * 检查器总要给出结论：学习者的代码调用 process.exit、写了死循环、返回永远不兑现的 Promise、改了检查器的文件，
 * npm run exercise 都打印一项 ✗ 说出是哪一种，退出码非零（一个读退出码的脚本不会把它当作通过）。
 * 还有参数：-- 100 和 -- 99 说的是同一件事，用法错误退出码是 2，不提没有涉及的步骤目录。
 *
 * 这些用例启动真实的 npm run exercise（scripts/exercise.ts），学习者的代码在它的检查进程里跑。
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";

import { READY, startWatch } from "../scripts/bench/watch-latency.ts";
import { dirProblem, parseArgs, runCli } from "../scripts/lib/exercises/cli.ts";
import { checkIsolated, startWorker } from "../scripts/lib/exercises/isolated.ts";
import { findExercise } from "../scripts/lib/exercises/registry.ts";
import { resolveTsxLoader } from "../scripts/lib/tsx-cli.ts";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "..");
/**
 * 死循环的用例里，检查进程多久没有心跳才算卡住（默认 15 秒，这里缩短省时间：死循环的那个用例一直占着一个核）。
 * 它决定的只是「真卡住了」多久报出来，得远大于机器很忙时心跳的正常间隔。1.5 秒曾在 CI 的 Wine 阶段（负载 5）误判过一次：
 * 那次检查进程还没开始第一项（还在导入、转译）。现在第一项开始之前按三倍算（isolated.ts 的 watchdog），那一段有 6 秒。
 */
const STALL_MS = "2000";
const STEP07 = "step07-abort-extensions";
const solution = fs.readFileSync(path.join(here, STEP07, "extensions", "reverse.ts"), "utf8");

const temps: string[] = [];
afterEach(() => {
  for (const dir of temps.splice(0)) fs.rmSync(dir, { recursive: true, force: true, maxRetries: 10 });
});

/** step07 的一份副本（src、extensions、package.json），放在 base/labs/mini-agent-harness/ 下，练习文件写成 source。 */
function step07(source: string, base = fs.mkdtempSync(path.join(os.tmpdir(), "exercise-verdict-"))): string {
  if (!temps.includes(base)) temps.push(base);
  const dir = path.join(base, "labs", "mini-agent-harness", STEP07);
  for (const name of ["src", "extensions", "package.json"]) {
    fs.cpSync(path.join(root, "labs", "mini-agent-harness", STEP07, name), path.join(dir, name), { recursive: true, filter: () => true });
  }
  fs.writeFileSync(path.join(dir, "extensions", "reverse.ts"), source);
  return dir;
}

/**
 * 运行 npm run exercise（scripts/exercise.ts 在 checkerRoot 下），收集输出和退出码。
 * 用 node --import 挂上 tsx 的加载器，不经过 tsx 命令行：那只是再起一个带着同一加载器的 node，每个用例白白多一个进程。
 */
function exercise(args: string[], env: NodeJS.ProcessEnv = {}, checkerRoot = root): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--import", resolveTsxLoader(), path.join(checkerRoot, "scripts", "exercise.ts"), ...args], {
      cwd: checkerRoot,
      stdio: ["ignore", "pipe", "pipe"],
      // 不测「卡住」的用例把心跳的时限放宽到 120 秒：CI 里 Windows 阶段与这套测试同时跑时，
      // 检查进程导入、转译练习文件曾经 15 秒没轮上 CPU，被当成死循环（process.exit(0) 的用例）。测卡住的用例自己给 STALL_MS
      env: { ...process.env, npm_package_name: "", FORCE_COLOR: "0", NO_COLOR: "1", EXERCISE_STALL_MS: "120000", ...env },
    });
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (out += chunk.toString("utf8")));
    child.on("close", (code) => resolve({ code, out }));
  });
}

/** 一个注册了 reverse 的扩展，execute 的函数体是 body。 */
const withExecute = (body: string): string =>
  `export default function (pi: any): void {\n  pi.registerTool({ name: "reverse", description: "倒过来", parameters: { type: "object" }, execute(args: any) { ${body} } });\n}\n`;

describe("npm run exercise 总给出结论", () => {
  it("检查进程起都起不来（spawn 当场抛出，如 Windows 上的 UNKNOWN）：不抛出，给出一项 ✗ 说出 spawn 的原话", async () => {
    // 参数里的 NUL 字符让 spawn 当场抛出，和 Windows 上个别的系统错误走的是同一条路
    const worker = startWorker("坏\u0000目录");
    expect(await worker.ready).toBe(false);
    const report = await checkIsolated(findExercise(7)!, step07(solution), { worker });
    expect(report).not.toBe("stale");
    const checks = (report as Exclude<typeof report, "stale">).checks;
    expect(checks).toHaveLength(1);
    expect(checks[0]).toMatchObject({ name: "启动检查进程", ok: false });
    expect(checks[0]!.saw).toMatch(/^检查进程没能启动（.*null bytes.*）：检查器的问题/);
  });

  it("练习文件一导入就 process.exit(0)：✗ 说检查进程提前退出了，退出码 1", async () => {
    const dir = step07("process.exit(0);\nexport default function (): void {}\n");
    const { code, out } = await exercise(["7", "--dir", dir]);
    expect(code, out).toBe(1);
    expect(out).toMatch(/^✗ /m);
    expect(out).toContain("退出了（退出码 0）");
    expect(out).toContain("process.exit");
    expect(out).toContain("练习 7 还没通过");
  });

  it("execute 返回一个永远不兑现的 Promise：✗ 点名那一项，说它在等永远不会兑现的 Promise", async () => {
    const dir = step07(withExecute("return new Promise(() => {});"));
    const { code, out } = await exercise(["7", "--dir", dir]);
    expect(code, out).toBe(1);
    expect(out).toMatch(/^✗ reverse \{"text":"abcdef"\}/m);
    expect(out).toContain("永远不会兑现的 Promise");
  });

  it("execute 里同步死循环：检查进程没有心跳就被结束，✗ 说是超时", async () => {
    const dir = step07(withExecute("for (;;) {}"));
    const { code, out } = await exercise(["7", "--dir", dir], { EXERCISE_STALL_MS: STALL_MS });
    expect(code, out).toBe(1);
    expect(out).toMatch(/^✗ reverse /m);
    expect(out).toContain("超时");
    expect(out).toContain("死循环");
    expect(out).toMatch(/--seed \d+/);
  });

  it("--watch 里同步卡住：打印超时的 ✗，接着等；改好保存后检查通过", async () => {
    // 卡住的方式换成 Atomics.wait：和死循环一样整个进程停住、没有心跳，却不占 CPU。
    // 死循环本身由上一个用例测；这里测的是 --watch 在超时之后接着等，不必再让一个核空转 6 秒
    const dir = step07(withExecute("Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);"));
    const watch = startWatch(root, 7, dir, { EXERCISE_STALL_MS: STALL_MS });
    try {
      await watch.waitFor("超时");
      await watch.waitFor("练习 7 还没通过");
      await watch.waitFor(READY);
      fs.writeFileSync(path.join(dir, "extensions", "reverse.ts"), solution);
      await watch.waitFor("练习 7 通过");
    } finally {
      await watch.stop();
    }
  }, 300_000);

  it("练习文件在检查时改了检查器的文件：✗ 点名被改的文件，结论不算数", async () => {
    // 检查器的一份副本（scripts/）：学习者的代码改的是副本，不是仓库里的检查器
    // 副本放在仓库的 node_modules/.cache 下：Node 往上找包时找到仓库的 node_modules，不用链接（Wine 里 junction 上的解析会失败）
    const cache = path.join(root, "node_modules", ".cache");
    fs.mkdirSync(cache, { recursive: true });
    const base = fs.mkdtempSync(path.join(cache, "exercise-verdict-"));
    temps.push(base);
    fs.cpSync(path.join(root, "scripts"), path.join(base, "scripts"), { recursive: true, filter: () => true });
    fs.copyFileSync(path.join(root, "package.json"), path.join(base, "package.json")); // "type": "module"
    const edit = `import fs from "node:fs";\nfs.appendFileSync(new URL("../../../../scripts/lib/exercises/run.ts", import.meta.url), "\\n// 让它通过\\n");\n`;
    const dir = step07(edit + solution, base);
    const { code, out } = await exercise(["7", "--dir", dir], {}, base);
    expect(code, out).toBe(1);
    expect(out).toMatch(/^✗ 检查器自己的文件没有被改动/m);
    expect(out).toContain("scripts/lib/exercises/run.ts");
    expect(out).not.toContain("检查器的问题");
  });
});

describe("练习编号与用法错误", () => {
  const silent = { root, stateFile: path.join(fs.mkdtempSync(path.join(os.tmpdir(), "exercise-verdict-state-")), "state.json") };
  async function cli(argv: string[], fromStep?: number): Promise<{ code: number; out: string }> {
    let out = "";
    const code = await runCli(argv, { ...silent, write: (text) => (out += text), ...(fromStep !== undefined ? { fromStep } : {}) });
    return { code, out };
  }

  it("-- 100 和 -- 99 一样：没有这个练习，列出现有的，退出码 2", async () => {
    for (const id of ["99", "100", "12345678901"]) {
      const { code, out } = await cli([id]);
      expect(code).toBe(2);
      expect(out).toContain(`没有练习 ${Number(id)}`);
      expect(out).toContain("7（第 8.5 章）");
    }
  });

  it("毕业练习叫 pi：-- pi 找得到它，--hint 给它的提示；它的内部编号 0 不是一个练习，10 是 step10 的练习", async () => {
    expect(parseArgs(["pi", "--seed", "3"])).toMatchObject({ id: "pi", seed: 3 });
    const hint = await cli(["pi", "--hint"]);
    expect(hint.code).toBe(0);
    expect(hint.out).toContain("练习 pi · 第 8.5 章 · 提示 1/3（点拨）");
    const zero = await cli(["0"]);
    expect(zero.code).toBe(2);
    expect(zero.out).toContain("没有练习 0");
    expect(zero.out).toContain("pi（毕业练习");
    expect(findExercise(10)?.step).toBe("step10-coding-tools");
  });

  it("在仓库根目录给了两个编号：不提步骤目录；从步骤目录来时才提", () => {
    const atRoot = parseArgs(["4", "5"]);
    expect(atRoot).toContain("一次只能检查一个练习");
    expect(atRoot).not.toContain("步骤目录");
    const inStep = parseArgs(["4", "5"], 4);
    expect(inStep).toContain("这个步骤目录");
    expect(inStep).toContain("npm run exercise -- 5");
  });

  it("--dir 指向不存在的目录、文件、别的步骤：说出来，退出码 2，不说「还没开始」", async () => {
    const exercise7 = findExercise(7)!;
    const missing = path.join(os.tmpdir(), "exercise-verdict-no-such-dir");
    expect(dirProblem(exercise7, missing)).toContain("目录不存在");
    expect(dirProblem(exercise7, path.join(root, "package.json"))).toContain("不是目录");
    expect(dirProblem(exercise7, path.join(root, "labs", "mini-agent-harness", "step04-agent-loop"))).toContain("step04-agent-loop 的目录，练习 7 在 step07-abort-extensions 里");
    expect(dirProblem(exercise7, path.join(root, "labs", "mini-agent-harness", STEP07))).toBeUndefined();
    const { code, out } = await cli(["7", "--dir", missing]);
    expect(code).toBe(2);
    expect(out).not.toContain("还没开始");
  });

  it("--watch 带上不认识的参数：退出码 2（不是 0）", async () => {
    const { code, out } = await exercise(["7", "--watch", "--frobnicate"]);
    expect(out).toContain("不认识的参数：--frobnicate");
    expect(code).toBe(2);
  });
});
