import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { repoRoot } from "../lib/paths.ts";
// @ts-expect-error .mjs 没有类型声明：只用它的 main
import { main } from "../../.ci/check-skips.mjs";

// .ci/check-skips.mjs：CI 里跳过的测试，不在名单里的一律算失败
const script = path.join(repoRoot, ".ci", "check-skips.mjs");
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ci-skips-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function write(name: string, content: unknown): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, typeof content === "string" ? content : JSON.stringify(content));
  return file;
}

const test = (fullName: string, status: string) => ({ fullName, status });
const report = (tests: Array<{ fullName: string; status: string }>) => ({
  numTotalTests: tests.length,
  testResults: [{ name: path.join(repoRoot, "labs", "x", "test", "a.test.ts"), assertionResults: tests }],
});

const allowList = write(
  "allow.txt",
  "# 说明\n\n# Windows 不能随便建符号链接\nlabs/x/test/a.test.ts > 符号链接*\n\n# 矩阵只在 Linux x64 上跑\n.ci/run > Node 版本矩阵*\n",
);

/** 真的起一个进程运行脚本：证明命令行入口把 main 的结果变成退出码。 */
function checkProcess(...args: string[]) {
  const r = spawnSync(process.execPath, [script, "某阶段", ...args, "--allow-list", allowList], { encoding: "utf8" });
  return { code: r.status, out: r.stdout + r.stderr };
}

/** 其余用例在本进程里调用 main（判断都在 main 里），收下它打印的东西：每个少起一个 node 进程。 */
function check(...args: string[]) {
  let out = "";
  const collect = (...parts: unknown[]) => void (out += parts.join(" ") + "\n");
  const log = vi.spyOn(console, "log").mockImplementation(collect);
  const error = vi.spyOn(console, "error").mockImplementation(collect);
  try {
    const code = (main as (argv: string[]) => number)(["某阶段", ...args, "--allow-list", allowList]);
    return { code, out };
  } finally {
    log.mockRestore();
    error.mockRestore();
  }
}

describe(".ci/check-skips.mjs", () => {
  it("没有跳过：退出码 0，打印「跳过 0 个」", () => {
    const r = checkProcess("--report", write("ok.json", report([test("一", "passed")])));
    expect(r.out).toContain("某阶段：跳过 0 个");
    expect(r.code).toBe(0);
  });

  it("名单里的跳过放行，并打印名单里写的理由", () => {
    const r = check("--report", write("allowed.json", report([test("一", "passed"), test("符号链接读得到", "skipped")])));
    expect(r.out).toContain("允许  labs/x/test/a.test.ts > 符号链接读得到");
    expect(r.out).toContain("理由：Windows 不能随便建符号链接");
    expect(r.code).toBe(0);
  });

  it("名单外的跳过（包括 todo）让它失败，并点名是哪个测试", () => {
    const r = checkProcess("--report", write("denied.json", report([test("浏览器测试", "skipped"), test("以后再写", "todo"), test("符号链接", "skipped")])));
    expect(r.out).toContain("跳过 3 个（名单允许 1 个，不允许 2 个）");
    expect(r.out).toContain("不许  labs/x/test/a.test.ts > 浏览器测试");
    expect(r.out).toContain("不许  labs/x/test/a.test.ts > 以后再写");
    expect(r.code).toBe(1);
  });

  it("不是测试的跳过（--skip）也按名单判断：矩阵", () => {
    expect(check("--skip", ".ci/run > Node 版本矩阵（这台是 Darwin arm64）").code).toBe(0);
    expect(check("--skip", ".ci/run > 别的什么").code).toBe(1);
  });

  it("报告读不出来，或一个测试都没有：失败", () => {
    expect(check("--report", path.join(dir, "nothing.json")).out).toContain("读不出 vitest 的 JSON 报告");
    const empty = check("--report", write("empty.json", report([])));
    expect(empty.out).toContain("一个测试都没有");
    expect(empty.code).toBe(1);
  });

  it("仓库自己的名单里每一条都有理由", () => {
    const text = fs.readFileSync(path.join(repoRoot, ".ci", "skip-allow-list.txt"), "utf8");
    const blocks = text.split(/\r?\n\s*\r?\n/);
    for (const block of blocks) {
      const lines = block.split(/\r?\n/).filter((l) => l.trim() !== "");
      const patterns = lines.filter((l) => !l.trim().startsWith("#"));
      if (patterns.length > 0) expect(lines.some((l) => l.trim().startsWith("#")), `这组模式没有注释说明理由：${patterns.join("、")}`).toBe(true);
    }
  });
});
