/**
 * 测试辅助本身：CLI 测试跑的是 src/ 打成的一个 .mjs（见 helpers/cli.ts 的 scriptArgs）。
 * 打包按内容缓存，所以要证明：源码一改，跑的就是新代码；仓库里的 src/ 不会多出文件。
 */

import fs from "node:fs";
import path from "node:path";
import { expect, it, onTestFinished, vi } from "vitest";

import { scriptedProvider, type RecordedRequest } from "scripted-provider";
import { cleanEnv, mainArgs, makeSandbox, removeSandbox, scriptArgs, stepRoot, testLoader, runScript } from "./helpers/cli.js";

function sandbox(): string {
  const dir = makeSandbox(undefined, { src: true }); // 这里的测试要改副本里的源码
  onTestFinished(() => removeSandbox(dir));
  return dir;
}

it("改了副本里的一个源文件：打包随之更新，放在 main.ts 旁边（项目根目录不变）", () => {
  const dir = sandbox();
  const [before] = mainArgs(dir, []);
  expect(before).toBe(path.join(dir, "src", "main.test-bundle.mjs"));
  // 只用 ASCII：esbuild 把打包里的中文写成 \u 转义。标记固定不变：改过的源码每次都一样，打包只在第一次运行时做，
  // 之后命中缓存（若每次都不同，每跑一遍测试就要多打一次包、临时目录里多一个文件）
  const marker = "test-marker-cli-helper";
  expect(fs.readFileSync(before!, "utf8")).not.toContain(marker);
  const cli = path.join(dir, "src", "cli.ts"); // main.ts import 的文件：改它，main.ts 的打包也得跟着变
  fs.writeFileSync(cli, fs.readFileSync(cli, "utf8").replace("Mini Agent Harness", marker)); // 横幅里的字：打包一定带着它
  const [after] = mainArgs(dir, []);
  expect(fs.readFileSync(after!, "utf8")).toContain(marker);
});

it("带 .ts 扩展时才挂上轻量加载器；.mjs 扩展不需要它", () => {
  const dir = sandbox();
  expect(mainArgs(dir, ["--extension", "extensions/logger.ts"]).slice(0, 2)).toEqual(["--import", testLoader]);
  expect(mainArgs(dir, ["--extension", "x.mjs"])).not.toContain(testLoader);
});

it("在步骤目录本身里：用 import.meta.url 的 main.ts 走加载器，不往仓库的 src/ 里写打包文件", () => {
  expect(mainArgs(stepRoot, ["--help"])).toEqual(["--import", testLoader, "src/main.ts", "--help"]);
  expect(fs.existsSync(path.join(stepRoot, "src", "main.test-bundle.mjs"))).toBe(false);
  // 不看 import.meta.url 的脚本直接跑缓存里的打包文件
  const [bundle] = scriptArgs(stepRoot, "src/provider-cli.ts", []);
  expect(path.dirname(bundle!)).not.toBe(path.join(stepRoot, "src"));
  expect(bundle!.endsWith(".mjs")).toBe(true);
});

it("本地脚本服务器的节奏：SCRIPTED_PROVIDER_CHUNK_DELAY_MS 替掉 main.ts 给的 40ms（runCli 设成 0）；cleanEnv 去掉它，交互测试照旧 40ms 一段", () => {
  const request: RecordedRequest = { method: "POST", path: "/v1/chat/completions", api: "openai", headers: {}, body: { messages: [{ role: "user", content: "你好" }] } };
  const delayOf = (): unknown => {
    const turn = scriptedProvider({ answer: () => ({ text: "好", toolCalls: [] }), chunkDelayMs: 40 })(request, 0);
    return "chunkDelayMs" in turn ? turn.chunkDelayMs : undefined;
  };
  expect(delayOf()).toBe(40);
  vi.stubEnv("SCRIPTED_PROVIDER_CHUNK_DELAY_MS", "0");
  onTestFinished(() => {
    vi.unstubAllEnvs();
  });
  expect(delayOf()).toBe(0);
  expect(cleanEnv()).not.toHaveProperty("SCRIPTED_PROVIDER_CHUNK_DELAY_MS"); // 测试进程里设了也不漏给子进程
  vi.stubEnv("SCRIPTED_PROVIDER_CHUNK_DELAY_MS", "快一点"); // 不是非负整数：不理它
  expect(delayOf()).toBe(40);
});

it("子进程不读标准输入就退出（例如参数错了）：写不进去的输入不算错，照样拿到它的退出码", async () => {
  const dir = sandbox();
  fs.writeFileSync(path.join(dir, "src", "quits-at-once.ts"), "process.exit(3);\n");
  // 输入比管道的缓冲区大得多：子进程退出时一定还没写完，写的一端收到 EPIPE
  const result = await runScript(dir, "src/quits-at-once.ts", [], "x".repeat(4 << 20));
  expect(result.code).toBe(3);
});
