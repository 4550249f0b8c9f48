import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
import { onTestFinished } from "vitest";

export const viewerDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
export const fixturesDir = path.join(viewerDir, "test", "fixtures");
const cliScript = path.join(viewerDir, "src", "cli.ts");
const tsxLoader = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
/**
 * 轻量加载器：每个子进程比 tsx 省约 0.6 秒 CPU，跑的仍是同一份 src/cli.ts。
 * 用 step09 测试里那一份（查看器本来就读 step09 的 src/），不另抄一份。
 */
const testLoader = pathToFileURL(path.join(viewerDir, "..", "mini-agent-harness", "step09-retry-timeout", "test", "helpers", "ts-loader", "register.mjs")).href;

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * 像 npm run view 那样运行查看器（cwd 当作用户敲命令的目录）。
 * via "tsx"：和 npm run view 一样经过 tsx（cli.test.ts 的第一个用例）；其余用轻量加载器，行为一样、省 CPU。
 */
export function runViewer(args: string[], cwd = viewerDir, via: "tsx" | "loader" = "loader"): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    // Node 26 起 module.register() 会打一条弃用警告（DEP0205）到 stderr：那是测试用的加载器的事，不是查看器的输出
    const loader = via === "tsx" ? ["--import", tsxLoader] : ["--disable-warning=DEP0205", "--import", testLoader];
    const child = spawn(process.execPath, [...loader, cliScript, ...args], {
      cwd,
      env: { ...process.env, INIT_CWD: cwd },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * 把夹具（名字，或别处的绝对路径）复制进一个新的临时目录（测试随便折腾，不动仓库里的文件）。
 * 只能在测试里调用：这个测试结束时，临时目录连同里面生成的页面一起删掉。
 */
export function copyFixture(name: string, as = path.basename(name)): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "viewer-test-"));
  onTestFinished(() => fs.rmSync(dir, { recursive: true, force: true, maxRetries: 10 }));
  const file = path.join(dir, as);
  fs.copyFileSync(path.resolve(fixturesDir, name), file);
  return file;
}
