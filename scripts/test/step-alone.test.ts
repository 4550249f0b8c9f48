/**
 * 步骤目录离开仓库也能用。真的复制出去、npm install 之后运行 start、demo、test 的是 npm run step-alone（CI 的一个阶段，
 * 要装依赖、跑整步的测试，不放进这里）；这里在测试进程里证明它依靠的两段跳过逻辑：
 * - 每个步骤的 repo-tools.cjs：步骤的 npm 脚本经过它使用仓库里的便利工具（Node 版本检查、练习检查器、会话查看器），
 *   工具不在时说一行就跳过，不崩。调用它的 main，根目录换成临时目录。
 * - step08、09 的 test/helpers/provider-dir.ts：找不到本地脚本服务器时，哪些测试文件不收。
 */
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";

import { repoRoot } from "../lib/paths.ts";
import { vitestSummary } from "../lib/step-alone.ts";
import { listSteps, stepDir } from "../lib/steps.ts";

type Run = (file: string, args: string[]) => number;
type Main = (args: string[], root: string, run: Run, say: (line: string) => void) => number;

const steps = listSteps(repoRoot);
const launcher = path.join(stepDir(repoRoot, "step07-abort-extensions"), "repo-tools.cjs");
const { main } = createRequire(import.meta.url)(launcher) as { main: Main };

const temps: string[] = [];
afterEach(() => {
  for (const dir of temps.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** 一个假的仓库根目录：只有 files 里给的文件 */
function fakeRoot(files: Record<string, string> = {}): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "mah-repo-tools-"));
  temps.push(root);
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  }
  return root;
}

/** 调用 main，记下说了什么、运行了什么 */
function call(args: string[], root: string, code = 0) {
  const said: string[] = [];
  const ran: Array<[string, string[]]> = [];
  const exit = main(args, root, (file, rest) => (ran.push([file, rest]), code), (line) => said.push(line));
  return { exit, said, ran };
}

describe("repo-tools.cjs", () => {
  it("每一步都是同一个文件，每一步的 npm 脚本都经过它", () => {
    expect(steps.length).toBeGreaterThanOrEqual(9);
    const text = fs.readFileSync(launcher, "utf8");
    for (const step of steps) {
      expect(fs.readFileSync(path.join(stepDir(repoRoot, step), "repo-tools.cjs"), "utf8"), step).toBe(text);
      const { scripts } = JSON.parse(fs.readFileSync(path.join(stepDir(repoRoot, step), "package.json"), "utf8")) as { scripts: Record<string, string> };
      for (const name of ["start", "demo", "test"]) expect(scripts[name], `${step} ${name}`).toMatch(/^node repo-tools\.cjs && /);
    }
  });

  it("在仓库里：用仓库的 Node 版本检查（当前的 Node 够新，什么也不说）；练习检查器原样转交参数与退出码", () => {
    expect(call([], repoRoot)).toEqual({ exit: 0, said: [], ran: [] });
    const exercise = call(["exercise", "7", "--hint"], repoRoot, 3);
    expect(exercise).toEqual({ exit: 3, said: [], ran: [[path.join(repoRoot, "scripts", "exercise.ts"), ["7", "--hint"]]] });
    expect(call(["view", "a.jsonl"], repoRoot).ran).toEqual([[path.join(repoRoot, "labs", "session-viewer", "src", "cli.ts"), ["a.jsonl"]]]);
  });

  it("仓库的检查说 Node 太旧：说它那一句，退出码 1，什么也不运行", () => {
    const root = fakeRoot({ "scripts/check-node.cjs": "module.exports = { nodeVersionProblem: (v) => '太旧了：' + v };\n", "scripts/exercise.ts": "" });
    expect(call(["exercise", "7"], root)).toEqual({ exit: 1, said: [`太旧了：${process.versions.node}`], ran: [] });
  });

  it("本目录不在仓库里：跳过 Node 版本检查，说一行（要的版本与当前版本），退出码 0，后面的 tsx 照常运行", () => {
    const { exit, said, ran } = call([], fakeRoot());
    expect(exit).toBe(0);
    expect(ran).toEqual([]);
    expect(said).toHaveLength(1);
    expect(said[0]).toContain("跳过仓库的 Node 版本检查");
    expect(said[0]).toContain("^20.19.0 || ^22.12.0 || >=24.0.0");
    expect(said[0]).toContain(process.version);
  });

  it.each([
    ["exercise", "练习检查器"],
    ["view", "会话查看器"],
  ])("本目录不在仓库里：npm run %s 说一行它在哪里，退出码 0，不运行任何东西", (tool, what) => {
    const { exit, said, ran } = call([tool, "7"], fakeRoot());
    expect({ exit, ran }).toEqual({ exit: 0, ran: [] });
    expect(said).toHaveLength(1);
    expect(said[0]).toContain(what);
    expect(said[0]).toContain("回到仓库里运行");
  });

  it("不认识的工具：说一行，退出码 2", () => {
    const { exit, said } = call(["bogus"], repoRoot);
    expect(exit).toBe(2);
    expect(said).toEqual(["repo-tools.cjs 不认识 bogus：只认 exercise、view"]);
  });
});

describe("step08、09：找不到本地脚本服务器时跳过什么（test/helpers/provider-dir.ts）", () => {
  const helper = (step: string) => path.join(stepDir(repoRoot, step), "test", "helpers", "provider-dir.ts");
  type ProviderDir = { findProviderDir(from: string): string | undefined; testsImportingProvider(testDir: string): string[]; providerDir: string | undefined };
  const load = async (): Promise<ProviderDir> => (await import(helper("step09-retry-timeout"))) as ProviderDir;

  it("两步是同一个文件；在仓库里找得到它（根目录 node_modules 里的链接，指向 labs/scripted-provider）", async () => {
    expect(fs.readFileSync(helper("step08-real-model"), "utf8")).toBe(fs.readFileSync(helper("step09-retry-timeout"), "utf8"));
    // 比内容而不比路径：Windows（与 Wine）上 npm 的工作区链接是目录联接，realpath 不一定展开它
    const found = (await load()).providerDir;
    expect(found).toBeDefined();
    const manifest = (dir: string): string => fs.readFileSync(path.join(dir, "package.json"), "utf8");
    expect(manifest(found!)).toBe(manifest(path.join(repoRoot, "labs", "scripted-provider")));
    expect(fs.readdirSync(path.join(found!, "src")).sort()).toEqual(fs.readdirSync(path.join(repoRoot, "labs", "scripted-provider", "src")).sort());
  });

  it("沿 node_modules 往上找：没有时是 undefined，链在上层目录里也找得到", async () => {
    const { findProviderDir } = await load();
    const root = fakeRoot({ "a/b/c/keep.txt": "" });
    expect(findProviderDir(path.join(root, "a", "b", "c"))).toBeUndefined();
    fs.mkdirSync(path.join(root, "a", "node_modules", "scripted-provider"), { recursive: true });
    fs.writeFileSync(path.join(root, "a", "node_modules", "scripted-provider", "package.json"), "{}");
    expect(findProviderDir(path.join(root, "a", "b", "c"))).toBe(fs.realpathSync(path.join(root, "a", "node_modules", "scripted-provider")));
  });

  it("不收的是 import 了它的值的测试文件：多行的 import 也算，只 import type 的不算（运行时不加载）", async () => {
    const { testsImportingProvider } = await load();
    const root = fakeRoot({
      "test/value.test.ts": 'import fs from "node:fs";\nimport { startProviderServer } from "scripted-provider";\n',
      "test/multi-line.test.ts": 'import {\n  scriptedProvider,\n  type ProviderServer,\n} from "scripted-provider";\n',
      "test/type-only.test.ts": 'import type { ProviderServer } from "scripted-provider";\nimport { x } from "./helpers/cli.js";\n',
      "test/none.test.ts": '// 注释里提到 from "scripted-provider" 不算\nimport { it } from "vitest";\n',
      "test/helpers/x.ts": 'import { startProviderServer } from "scripted-provider";\n',
    });
    expect(testsImportingProvider(path.join(root, "test"))).toEqual(["test/multi-line.test.ts", "test/value.test.ts"]);
  });
});

describe("npm run step-alone 读 vitest 的统计行", () => {
  it("两行压成一行；颜色码去掉；找不到时是空串（这一项判失败）", () => {
    const output = "\u001b[2m Test Files \u001b[22m 69 passed | 7 skipped (76)\n      Tests  1160 passed | 20 skipped (1180)\n";
    expect(vitestSummary(output)).toBe("测试文件 69 passed | 7 skipped (76)，测试 1160 passed | 20 skipped (1180)");
    expect(vitestSummary("Error: Cannot find module\n")).toBe("");
  });
});
