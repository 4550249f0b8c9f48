import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findNpmCli, parseQuickStart, runFreshCheck, splitCommand } from "../lib/fresh-check.ts";
import { Collector, makeFixtureRoot, removeFixtureRoot, writeFiles } from "./helpers/fixture.ts";

const README = `# mini-agent-harness

一些介绍文字，还有别的代码块：

\`\`\`ts
const x = 1; // npm ci
\`\`\`

## 快速开始

\`\`\`bash
npm ci && npm run demo
npm test
\`\`\`

\`\`\`bash
npm run diff -- 06 07
\`\`\`
`;

describe("README 快速开始的解析", () => {
  it("找到只含 npm 命令、且有 npm ci 的那个代码块，拆出两条命令", () => {
    expect(parseQuickStart(README)).toEqual([
      { line: "npm ci && npm run demo", npmArgs: [["ci"], ["run", "demo"]] },
      { line: "npm test", npmArgs: [["test"]] },
    ]);
  });

  it("容忍 CRLF、~~~ 围栏、$ 提示符、注释行与行尾注释", () => {
    const text = "说明\r\n~~~console\r\n# 安装并对照 golden\r\n$ npm ci && npm run demo   # 约一分钟\r\n\r\n$ npm test\r\n~~~\r\n";
    expect(parseQuickStart(text).map((c) => c.line)).toEqual(["npm ci && npm run demo", "npm test"]);
  });

  it("没有这样的代码块时给出清楚的错误", () => {
    expect(() => parseQuickStart("# 标题\n\n```bash\nnpm run demo\n```\n")).toThrow(/没有找到快速开始的代码块/);
    expect(() => parseQuickStart("```bash\nnpm ci\n")).toThrow(/没有找到/); // 没闭合的代码块不算
  });

  it("只接受 npm 命令与 &&", () => {
    expect(splitCommand("npm run demo -- 7")).toEqual([["run", "demo", "--", "7"]]);
    expect(() => splitCommand("npm ci; npm test")).toThrow(/shell 语法/);
    expect(() => splitCommand("npm ci | tee log")).toThrow(/shell 语法/);
    expect(() => splitCommand("npm ci && make")).toThrow(/不是一条 npm 命令/);
  });

  it("npm 的 CLI：优先 npm_execpath，其次 node 旁边", () => {
    const found = findNpmCli();
    if (found !== undefined) expect(fs.existsSync(found)).toBe(true);
    expect(findNpmCli({ npm_execpath: "/不存在/npm-cli.js" }, path.join("/不存在", "bin", "node"))).toBeUndefined();
  });
});

const hasGit = spawnSync("git", ["--version"]).status === 0;
if (!hasGit) console.warn("[跳过] fresh-check 端到端测试：找不到 git");

describe.skipIf(!hasGit)("fresh-check 端到端（假仓库）", () => {
  let root: string;
  let out: Collector;
  let result: Awaited<ReturnType<typeof runFreshCheck>>;

  beforeAll(async () => {
    root = makeFixtureRoot("fresh");
    writeFiles(root, {
      "README.md": README,
      // 没有依赖的包：npm ci 只需要锁文件，不联网
      "package.json": JSON.stringify({
        name: "fresh-fixture",
        version: "1.0.0",
        private: true,
        scripts: { demo: `node -e "console.log('demo 跑了')"`, test: `node -e "console.log('测试失败了'); process.exit(1)"` },
      }),
      "package-lock.json": JSON.stringify({
        name: "fresh-fixture",
        version: "1.0.0",
        lockfileVersion: 3,
        requires: true,
        packages: { "": { name: "fresh-fixture", version: "1.0.0" } },
      }),
      ".npmrc": "audit=false\nfund=false\nupdate-notifier=false\n",
    });
    const git = (...args: string[]) => spawnSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.invalid", "-c", "commit.gpgsign=false", ...args], { cwd: root });
    git("init", "--quiet");
    git("add", "-A");
    git("commit", "--quiet", "-m", "fixture");
    // 提交之后才改的文件不应出现在克隆里
    fs.writeFileSync(path.join(root, "uncommitted.txt"), "x");
    out = new Collector();
    result = await runFreshCheck({ root, out });
  }, 120_000); // 只防真卡住：npm ci 与几次 npm run 在很忙的机器上也可能要一分钟
  afterAll(() => removeFixtureRoot(root));

  it("逐条执行 README 的命令并给出结论", () => {
    expect(out.text).toContain("demo 跑了");
    expect(out.text).toMatch(/✓ npm ci && npm run demo（[\d.]+ s）/);
    expect(out.text).toMatch(/✗ npm test（npm test 退出码 1，[\d.]+ s）/);
    expect(result.verdicts.map((v) => v.ok)).toEqual([true, false]);
    expect(result.code).toBe(1);
  });

  it("提醒检查的是已提交的内容，结束后删掉临时目录", () => {
    expect(out.text).toContain("工作区有未提交的改动");
    expect(fs.existsSync(result.cloneDir)).toBe(false);
    expect(out.text).toContain("1/2 条命令通过；临时目录已删除");
  });
});
