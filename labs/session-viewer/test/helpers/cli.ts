import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
import { format } from "node:util";
import { onTestFinished, vi } from "vitest";

import { runViewer as view } from "../../src/view.ts";

export const viewerDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
export const fixturesDir = path.join(viewerDir, "test", "fixtures");
const cliScript = path.join(viewerDir, "src", "cli.ts");
const tsxLoader = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * 像 npm run view 那样运行查看器（cwd 当作用户敲命令的目录）。
 * 默认在测试自己的进程里调用 runViewer（src/view.ts），说的话收下来：查看器不碰进程的别的东西，
 * 起一个子进程只是白花半秒 CPU。via "tsx"：真的像 npm run view 那样经过 tsx 起一个进程（cli.test.ts 的第一个用例，入口 cli.ts 也在那里测）。
 */
export async function runViewer(args: string[], cwd = viewerDir, via: "tsx" | "in-process" = "in-process"): Promise<CliResult> {
  if (via === "tsx") return runViewerProcess(args, cwd);
  let stdout = "";
  let stderr = "";
  const said = (text: string) => (...parts: unknown[]) => void (text === "out" ? (stdout += `${format(...parts)}\n`) : (stderr += `${format(...parts)}\n`));
  const log = vi.spyOn(console, "log").mockImplementation(said("out"));
  const error = vi.spyOn(console, "error").mockImplementation(said("err"));
  try {
    const code = await view(args, cwd);
    return { code, stdout, stderr };
  } finally {
    log.mockRestore();
    error.mockRestore();
  }
}

function runViewerProcess(args: string[], cwd: string): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", tsxLoader, cliScript, ...args], {
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
