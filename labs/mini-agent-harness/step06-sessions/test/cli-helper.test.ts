/**
 * 测试辅助本身：CLI 测试跑的是 src/ 打成的一个 .mjs（见 helpers/cli.ts 的 scriptArgs）。
 * 打包按内容缓存，所以要证明：源码一改，跑的就是新代码；仓库里的 src/ 不会多出文件。
 */

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, it, onTestFinished } from "vitest";

import { mainArgs, makeSandbox, removeSandbox, runCli, stepRoot, testLoader, runScript } from "./helpers/cli.js";

function sandbox(): string {
  const dir = makeSandbox({ src: true }); // 这里的测试要改副本里的源码
  onTestFinished(() => removeSandbox(dir));
  return dir;
}

/** node 参数里那个打包文件 */
const bundleOf = (args: string[]): string => args.find((arg) => arg.endsWith(".mjs") && !arg.startsWith("file:"))!;

it("改了副本里的源文件：打包随之更新，跑的是新代码", async () => {
  const dir = sandbox();
  const before = bundleOf(mainArgs(dir, []));
  // 只用 ASCII：esbuild 把打包里的中文写成 \u 转义。标记固定不变：改过的源码每次都一样，打包只在第一次运行时做，之后命中缓存
  const marker = "test-marker-cli-helper";
  expect(fs.readFileSync(before, "utf8")).not.toContain(marker);
  const main = path.join(dir, "src", "main.ts");
  fs.writeFileSync(main, fs.readFileSync(main, "utf8").replace("Mini Agent Harness", marker)); // 横幅里的字：打包一定带着它
  expect(fs.readFileSync(bundleOf(mainArgs(dir, [])), "utf8")).toContain(marker);
  expect((await runCli(dir, [], "")).stdout).toContain(`${marker} · `);
});

it("打包文件放在系统临时目录或副本的 src/ 里；在步骤目录本身里不往仓库的 src/ 写文件", () => {
  const bundle = bundleOf(mainArgs(sandbox(), []));
  expect(bundle.startsWith(os.tmpdir())).toBe(true);
  const inRepo = mainArgs(stepRoot, []);
  expect(fs.existsSync(path.join(stepRoot, "src", "main.test-bundle.mjs"))).toBe(false);
  // 用 import.meta.url 找根目录的 main.ts 在仓库里只能走加载器；不看它的直接跑缓存里的打包文件
  if (fs.readFileSync(path.join(stepRoot, "src", "main.ts"), "utf8").includes("import.meta.url")) expect(inRepo).toEqual(["--import", testLoader, "src/main.ts"]);
  else expect(path.dirname(bundleOf(inRepo))).not.toBe(path.join(stepRoot, "src"));
});

it("子进程不读标准输入就退出（例如参数错了）：写不进去的输入不算错，照样拿到它的退出码", async () => {
  const dir = sandbox();
  fs.writeFileSync(path.join(dir, "src", "quits-at-once.ts"), "process.exit(3);\n");
  // 输入比管道的缓冲区大得多：子进程退出时一定还没写完，写的一端收到 EPIPE
  const result = await runScript(dir, "src/quits-at-once.ts", [], "x".repeat(4 << 20));
  expect(result.code).toBe(3);
});
