import { spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compareSteps, formatStepDiff } from "../lib/step-diff.ts";
import { makeFixtureRoot, removeFixtureRoot, writeFiles, writeStep } from "./helpers/fixture.ts";
import { runStepDiff } from "../lib/step-diff-cli.ts";
import { resolveTsxLoader } from "../lib/tsx-cli.ts";

describe("步骤对比（npm run diff）", () => {
  let root: string;
  beforeAll(() => {
    root = makeFixtureRoot("stepdiff");
    writeStep(root, "step02-messages", {
      "README.md": "# step02\n",
      "src/same.ts": "export const same = 1;\n",
      "src/loop.ts": "export function loop() {\n  return 1;\n}\n",
      "src/old.ts": "export const old = true;\n",
      "node_modules/x/index.js": "module.exports = 1;\n",
      ".sessions/a.jsonl": "{}\n",
      "package-lock.json": "{}\n",
    });
    writeStep(root, "step03-streaming", {
      "README.md": "# step03\n",
      "src/same.ts": "export const same = 1;\r\n", // 只差换行符，不算修改
      "src/loop.ts": "export function loop() {\n  return 2;\n}\n",
      "src/stream.ts": "export const stream = 1;\nexport const more = 2;\n",
      "expected-output.txt": "你> 你好\n",
      "node_modules/y/index.js": "module.exports = 2;\n",
      "package-lock.json": "{ \"changed\": true }\n",
    });
  });
  afterAll(() => removeFixtureRoot(root));

  it("分出新增、删除、修改，忽略 node_modules/.sessions/package-lock.json，噪音文件排在最后", () => {
    const c = compareSteps(root, "step02-messages", "step03-streaming");
    expect(c.added).toEqual(["src/stream.ts", "expected-output.txt"]);
    expect(c.removed).toEqual(["src/old.ts"]);
    expect(c.changed).toEqual(["src/loop.ts", "README.md", "package.json"]);
    expect(c.unchanged).toBe(1);
  });

  it("输出：表头、文件清单、每个修改文件的 diff、新增文件的全文，噪音最后", () => {
    const text = formatStepDiff(compareSteps(root, "step02-messages", "step03-streaming"));
    expect(text.startsWith("步骤对比：step02-messages → step03-streaming\n比较的是目录里现有的文件\n新增 2 个文件，删除 1 个，修改 3 个，未变 1 个\n")).toBe(true);
    expect(text).toMatch(/  \+ src\/stream\.ts（新增） +\+2 −0\n/);
    expect(text).toMatch(/  - src\/old\.ts（删除） +\+0 −1\n/);
    expect(text).toContain("--- step02-messages/src/loop.ts\n+++ step03-streaming/src/loop.ts");
    expect(text).toContain("-  return 1;\n+  return 2;");
    expect(text).toContain("+export const stream = 1;\n+export const more = 2;");
    // 代码 diff 在前，噪音（README/package.json/expected-output.txt）在后
    const at = (s: string) => text.indexOf(s);
    expect(at("━━ src/loop.ts")).toBeLessThan(at("━━ src/stream.ts（新增）"));
    expect(at("━━ src/stream.ts（新增）")).toBeLessThan(at("━━ README.md"));
    expect(at("━━ README.md")).toBeLessThan(at("━━ expected-output.txt（新增）"));
    expect(text).not.toContain("node_modules");
    expect(text).not.toContain("package-lock");
    expect(text).not.toContain("\u001b["); // 不是终端就不上色
  });

  it("挪了位置或换了名字的文件和原来的文件比；留下的同名文件大半内容搬走了就当作新写的；只差缩进的行不算", () => {
    const r = makeFixtureRoot("stepdiff-moved");
    try {
      const body = Array.from({ length: 8 }, (_, i) => `console.log(${i});`).join("\n");
      writeStep(r, "step07-abort-extensions", {
        "src/main.ts": `${body}\nconsole.log("old");\n`,
        "src/lock.ts": "export const lock = 1;\nexport const held = 2;\n",
        "src/tiny.ts": "import x from \"y\";\n",
      });
      writeStep(r, "step08-real-model", {
        // 程序包进函数、缩进一层，搬进 cli.ts；main.ts 只剩一行
        "src/cli.ts": `export function run() {\n${body.split("\n").map((l) => `  ${l}`).join("\n")}\n  console.log("new");\n}\n`,
        "src/main.ts": "run();\n",
        "src/guards/lock.ts": "export const lock = 1;\nexport const held = 2;\n",
        // 只有一行 import 和旧文件相同：不算改来的
        "src/big.ts": `import x from "y";\n${Array.from({ length: 8 }, (_, i) => `export const v${i} = ${i};`).join("\n")}\n`,
      });
      const c = compareSteps(r, "step07-abort-extensions", "step08-real-model");
      const byFile = Object.fromEntries(c.changes.map((x) => [x.file, [x.origin, x.plus, x.minus]]));
      expect(byFile["src/cli.ts"]).toEqual(["src/main.ts", 3, 1]); // 函数头、新的一行、右括号；删掉的只有 "old" 那行
      expect(byFile["src/main.ts"]).toEqual([null, 1, 0]);
      expect(byFile["src/guards/lock.ts"]).toEqual(["src/lock.ts", 0, 0]);
      expect(byFile["src/big.ts"]).toEqual([undefined, 9, 0]);
      expect(c.removed).toEqual(["src/tiny.ts"]); // lock.ts 挪走了，不算删除
      const text = formatStepDiff(c);
      expect(text).toContain("新增 1 个文件，删除 1 个，修改 2 个，挪来或改来 2 个"); // 修改的另一个是 package.json
      expect(text).toMatch(/~ src\/guards\/lock\.ts（从 src\/lock\.ts 挪来，内容没变） +\+0 −0/);
      expect(text).toMatch(/~ src\/cli\.ts（由 src\/main\.ts 改来） +\+3 −1/);
      expect(text).toMatch(/~ src\/main\.ts（原来的内容搬走了，当作新写的） +\+1 −0/);
      expect(text).toContain("--- step07-abort-extensions/src/main.ts\n+++ step08-real-model/src/cli.ts");
    } finally {
      removeFixtureRoot(r);
    }
  });

  it("上色只在要求时发生", () => {
    expect(formatStepDiff(compareSteps(root, "step02-messages", "step03-streaming"), true)).toContain("\u001b[32m+");
  });

  it("相同的步骤：说明完全相同", () => {
    expect(formatStepDiff(compareSteps(root, "step02-messages", "step02-messages"))).toContain("两个步骤的内容完全相同");
  });

  it("--stat 只列文件与增删行数，各组合计；--src 只看 src/", () => {
    const c = compareSteps(root, "step02-messages", "step03-streaming");
    const stat = formatStepDiff(c, { stat: true });
    expect(stat).toContain("src/ 3 个文件 +3 −2（共 5 行）；其他文件 3 个文件");
    expect(stat).not.toContain("━━");
    const src = formatStepDiff(c, { srcOnly: true });
    expect(src).toContain("（只看 src/）");
    expect(src).toContain("━━ src/loop.ts ━━");
    expect(src).not.toContain("README.md");
  });

  it("测试文件排在最后：src/ → 其他 → test/", () => {
    const r = makeFixtureRoot("stepdiff-order");
    try {
      writeStep(r, "step01-cli", { "src/a.ts": "1\n", "test/a.test.ts": "1\n", "extensions/x.ts": "1\n" });
      writeStep(r, "step02-messages", { "src/a.ts": "2\n", "test/a.test.ts": "2\n", "extensions/x.ts": "2\n" });
      const text = formatStepDiff(compareSteps(r, "step01-cli", "step02-messages"));
      const at = (s: string) => text.indexOf(s);
      expect(at("━━ src/a.ts")).toBeLessThan(at("━━ extensions/x.ts"));
      expect(at("━━ extensions/x.ts")).toBeLessThan(at("━━ test/a.test.ts"));
    } finally {
      removeFixtureRoot(r);
    }
  });

  const hasGit = spawnSync("git", ["--version"]).status === 0;
  if (!hasGit) console.warn("[跳过] git 来源的步骤对比：这台机器上没有 git");
  it.skipIf(!hasGit)("在 git 仓库里：比较提交的版本；没提交的文件单独列一次，不算新增", () => {
    const r = makeFixtureRoot("stepdiff-git");
    try {
      writeStep(r, "step01-cli", { "src/a.ts": "1\n" });
      writeStep(r, "step02-messages", { "src/a.ts": "2\n" });
      const git = (...args: string[]) => spawnSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false", ...args], { cwd: r });
      git("init", "-q");
      git("add", "-A");
      git("commit", "-qm", "init");
      writeFiles(path.join(r, "labs", "mini-agent-harness", "step02-messages"), { "my-exercise.ts": "mine\n", "src/a.ts": "changed by me\n" });
      const c = compareSteps(r, "step01-cli", "step02-messages");
      expect(c.source).toBe("git");
      expect(c.added).toEqual([]);
      expect(c.untracked).toEqual(["step02-messages/my-exercise.ts"]);
      expect(c.modified).toEqual(["step02-messages/src/a.ts"]);
      expect(c.read("to", "src/a.ts")).toBe("2\n");
      const text = formatStepDiff(c);
      expect(text).toContain("  ? step02-messages/my-exercise.ts");
      expect(text.match(/my-exercise/g)).toHaveLength(1);
      // --worktree：比较目录里现有的文件
      expect(compareSteps(r, "step01-cli", "step02-messages", { worktree: true }).added).toEqual(["my-exercise.ts"]);
    } finally {
      removeFixtureRoot(r);
    }
  });

  const script = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "step-diff.ts");
  const run = (...args: string[]) => spawnSync(process.execPath, ["--import", resolveTsxLoader(), script, ...args], { encoding: "utf8" }); // 和 npm run diff 同一个脚本；不经过 tsx 命令行，少起一个进程

  // 用法错误在进程内检查（每次起 tsx 要半秒多 CPU）；下面那个用例经过真正的命令行
  const runHere = (...args: string[]) => {
    let stdout = "";
    let stderr = "";
    const status = runStepDiff(args, { out: { write: (t: string) => (stdout += t) }, err: { write: (t: string) => (stderr += t) }, color: false });
    return { status, stdout, stderr };
  };

  it("参数不对时打印用法并以 2 退出；第一步没有上一步", () => {
    for (const args of [[], ["01", "02", "03"], ["07", "--bogus"]]) {
      const r = runHere(...args);
      expect(r.status, args.join(" ")).toBe(2);
      expect(r.stderr).toContain("用法：npm run diff -- [<旧步骤>] <新步骤>");
    }
    expect(runHere("01").stderr).toContain("step01-cli 是第一步，没有上一步可比。");
    expect(runHere("99").status).toBe(2);
  });

  it("只写一个步骤：和它的上一步比（07 = 06 → 07），按 step07 README 的阅读顺序，本章的想法在最前", () => {
    const r = run("07", "--stat");
    expect(r.status).toBe(0);
    expect(r.stdout.startsWith("步骤对比：step06-sessions → step07-abort-extensions\n")).toBe(true);
    const groups = [...r.stdout.matchAll(/^(\S[^：\n]*)：$/gm)].map((m) => m[1]);
    expect(groups[0]).toBe("本章的想法");
    expect(groups.at(-1)).toBe("测试");
  });
});
