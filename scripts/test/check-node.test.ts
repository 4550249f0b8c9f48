/**
 * Node 太旧时每个入口先说一行中文（issue 31 第 15 条）：engines 曾写着 >=20，
 * 可 npm test 要 20.19（vite 与 rolldown、util.styleText），tsx 在 20.0.0 上卡住，--watch 要 20.6。
 * 检查写在 scripts/check-node.cjs 里，npm 脚本先用 node 跑它，再交给 tsx 或 vitest。
 */
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { describe, expect, it, type TestContext } from "vitest";

import { findNpmCli } from "../lib/fresh-check.ts";
import { repoRoot } from "../lib/paths.ts";

const checker = path.join(repoRoot, "scripts", "check-node.cjs");
const { nodeVersionProblem, ENGINES } = createRequire(import.meta.url)(checker) as {
  nodeVersionProblem: (version: string) => string | null;
  ENGINES: string;
};

describe("哪些 Node 版本可以", () => {
  it.each(["20.19.0", "v20.19.5", "20.20.2", "22.12.0", "22.23.3", "24.0.0", "24.22.3", "26.1.0"])("%s：可以", (version) => {
    expect(nodeVersionProblem(version)).toBeNull();
  });

  it.each(["20.0.0", "20.6.0", "20.18.3", "21.7.3", "22.0.0", "22.11.0", "23.11.1", "18.20.8", "16.20.2", "0.12.18"])("%s：一行中文，说需要哪个版本、怎么装", (version) => {
    const problem = nodeVersionProblem(version)!;
    expect(problem.split("\n")).toHaveLength(1);
    expect(problem).toContain(`当前是 v${version}`);
    expect(problem).toContain("20.19");
    expect(problem).toContain("https://nodejs.org");
  });
});

/** 所有包：根目录、书站、两个工具包、每一步。 */
function packages(): Array<{ dir: string; json: { engines?: { node?: string }; scripts?: Record<string, string> } }> {
  const dirs = [".", "book", "labs/session-viewer", "labs/scripted-provider"];
  const steps = path.join(repoRoot, "labs", "mini-agent-harness");
  for (const name of fs.readdirSync(steps).sort()) if (/^step\d\d-/.test(name)) dirs.push(path.join("labs", "mini-agent-harness", name));
  return dirs.map((dir) => ({ dir, json: JSON.parse(fs.readFileSync(path.join(repoRoot, dir, "package.json"), "utf8")) }));
}

describe("engines 说的是真的，每个入口都先检查", () => {
  it("每个 package.json 的 engines 都与检查用的范围相同", () => {
    const all = packages();
    expect(all.length).toBeGreaterThanOrEqual(13);
    for (const { dir, json } of all) expect(json.engines?.node, dir).toBe(ENGINES);
  });

  it("每个经过 tsx 或 vitest 的 npm 脚本都先用 node 跑 check-node.cjs（步骤里经过 repo-tools.cjs，它在仓库里时跑的就是这个检查）", () => {
    const unchecked: string[] = [];
    for (const { dir, json } of packages()) {
      const isStep = dir.startsWith(path.join("labs", "mini-agent-harness"));
      const prefix = isStep ? "node repo-tools.cjs && " : `node ${path.relative(path.join(repoRoot, dir), checker).split(path.sep).join("/")} && `;
      for (const [name, command] of Object.entries(json.scripts ?? {})) {
        if (/\b(tsx|vitest)\b/.test(command) && !command.startsWith(prefix)) unchecked.push(`${dir}: ${name}`);
        // 步骤的脚本不许再直接指向仓库里的文件：单独复制出来的目录里它们不在（仓库的工具经过 repo-tools.cjs）
        if (isStep && command.includes("../")) unchecked.push(`${dir}: ${name} 直接用了 ${command}`);
      }
    }
    expect(unchecked).toEqual([]);
  });
});

/** 在一个临时文件里把 process.versions.node 改成 version，用 --require 先加载它。 */
function fakeVersion(test: TestContext, version: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "check-node-"));
  test.onTestFinished(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, "fake-version.cjs");
  fs.writeFileSync(file, `Object.defineProperty(process.versions, "node", { value: ${JSON.stringify(version)} });\n`);
  return file;
}

describe("作为一个进程运行", () => {
  it("当前的 Node：什么也不说，退出码 0", () => {
    const result = spawnSync(process.execPath, [checker], { encoding: "utf8" });
    expect(result.status).toBe(0);
    expect(result.stdout + result.stderr).toBe("");
  });

  it("Node 20.0.0：一行中文，退出码 1，没有堆栈", (test) => {
    const result = spawnSync(process.execPath, ["--require", fakeVersion(test, "20.0.0"), checker], { encoding: "utf8" });
    expect(result.status).toBe(1);
    expect(result.stderr.trimEnd().split("\n")).toHaveLength(1);
    expect(result.stderr).toContain("当前是 v20.0.0");
  });

  it("npm run demo 在 Node 20.0.0 上：检查先说话，tsx 根本没有启动", async (test) => {
    const fake = fakeVersion(test, "20.0.0");
    // NODE_OPTIONS 传给 npm 起的每个 node：检查与 tsx 都会看到假的版本号（npm 自己看的是 process.version，不受影响）
    // npm 的 CLI 用 process.execPath 直接起（Windows 上不经过 cmd：Wine 的 cmd 认不出带引号的整条命令）；找不到它才经过 shell
    const npmCli = findNpmCli();
    if (npmCli === undefined && process.platform === "win32") {
      console.log("找不到 npm 的 CLI（node.exe 旁边没有 npm-cli.js），跳过 npm run demo 的这一项");
      test.skip();
    }
    const env = { ...process.env, NODE_OPTIONS: `--require ${JSON.stringify(fake)}` };
    const child =
      npmCli !== undefined
        ? spawn(process.execPath, [npmCli, "run", "demo"], { cwd: repoRoot, env, stdio: ["ignore", "pipe", "pipe"] })
        : spawn("npm run demo", { cwd: repoRoot, env, stdio: ["ignore", "pipe", "pipe"], shell: true });
    test.onTestFinished(() => {
      child.kill("SIGKILL");
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    expect(code).not.toBe(0);
    expect(stderr).toContain("当前是 v20.0.0");
    expect(stdout).not.toContain("step01");
  });
});
