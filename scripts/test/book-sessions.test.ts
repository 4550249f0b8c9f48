// 书站构建时某一步的 demo 失败（学习者改坏了 step06，issue 49 第 1 条）：只说一行——哪一步、demo 自己最后说了什么、
// 该怎么办——这一步没有会话页，步骤页与章节里说 demo 没有跑通，书站的其余部分照常构建，也没有调用栈。
// 在本进程里调用会话页的生成函数；被跑的是一份临时复制、改坏了的 step06（demo 本身是子进程：它就是被测的东西）。
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { demoFailureLine, lastWords, writeSessionPages } from "../../book/scripts/lib/sessions.ts";
import { DEMO_DID_NOT_RUN, type TransformHooks } from "../../book/scripts/lib/transform.ts";
import { repoRoot } from "../lib/paths.ts";

const STEP = "step06-sessions";
let tmp: string;
let result: Awaited<ReturnType<typeof writeSessionPages>>;
const log: string[] = [];

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "book-broken-demo-"));
  const labs = path.join(tmp, "labs");
  const from = path.join(repoRoot, "labs", "mini-agent-harness", STEP);
  for (const name of ["src", "package.json"]) fs.cpSync(path.join(from, name), path.join(labs, STEP, name), { recursive: true, filter: () => true });
  // 学习者的一处改动让 demo 一开始就抛出异常
  const demo = path.join(labs, STEP, "src", "demo.ts");
  fs.writeFileSync(demo, `throw new Error("学习者改坏了这一步");\n${fs.readFileSync(demo, "utf8")}`);
  result = await writeSessionPages(path.join(tmp, "public"), ["step05-tools", STEP], (line) => log.push(line), { labsDir: labs, cacheDir: path.join(tmp, "cache") });
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe("书站构建时 demo 失败", () => {
  it("说一行：哪一步、退出码、demo 最后说的话、看原因与绕开它的命令；没有调用栈", () => {
    expect(log).toHaveLength(1);
    const line = log[0] ?? "";
    expect(line).not.toContain("\n");
    expect(line).toContain(`${STEP} 的 demo 没有跑通（退出码 1）`);
    expect(line).toContain("Error: 学习者改坏了这一步");
    expect(line).toContain("npm run demo -- 6");
    expect(line).toContain("git stash");
    expect(line).not.toMatch(/\bat .*:\d+:\d+/);
    expect(result.failed.get(STEP)).toBe(line);
  });

  it("这一步没有会话页、没有写缓存（改好之后下一次构建会重跑）；别的步骤不受影响", () => {
    expect(result.sessions.get(STEP)).toEqual([]);
    expect(fs.existsSync(path.join(tmp, "public", "sessions"))).toBe(false);
    expect(fs.existsSync(path.join(tmp, "cache", "sessions"))).toBe(false);
    // step05 没有会话，不跑 demo
    expect(result.sessions.has("step05-tools")).toBe(false);
  });

  it("步骤页与章节在会话页的位置上说 demo 没有跑通", async () => {
    // 模块名写成变量：steps.ts 经代码高亮用到书站自己的依赖（Shiki），根目录的类型检查没有它们，不该顺着查进去
    const steps = new URL("../../book/scripts/lib/steps.ts", import.meta.url).href;
    const { stepPage } = (await import(steps)) as { stepPage: (steps: string[], step: string, chapters: unknown[], hooks: TransformHooks) => string };
    const page = stepPage([STEP], STEP, [], { figure: () => ({ live: true }), pageFor: () => undefined, sessions: () => [], demoFailed: (s) => result.failed.get(s) });
    expect(page).toContain("## demo 写下的会话");
    expect(page).toContain(DEMO_DID_NOT_RUN);
    expect(page).toContain(log[0]);
  });

  it("demo 最后几行：不要调用栈、Node 的版本号与 ^ 标记；控制字符看得见；没有 stderr 时看 stdout", () => {
    const stderr = "/x/src/demo.ts:1\nthrow new Error(\"坏了\");\n      ^\n\n\nError: 坏了\n    at f (/x/src/demo.ts:1:7)\n\nNode.js v20.20.2\n";
    expect(lastWords({ stderr, stdout: "" })).toEqual(['throw new Error("坏了");', "Error: 坏了"]);
    expect(lastWords({ stderr: "", stdout: "一\n\u001b[31m二\n" })).toEqual(["一", "\\u001b[31m二"]);
    const timedOut = demoFailureLine("step08-real-model", { stdout: "", stderr: "", exitCode: null, signal: "SIGTERM", timedOut: true });
    expect(timedOut).toContain("（超时，被结束）。");
    expect(timedOut).toContain("npm run demo -- 8");
  });
});
