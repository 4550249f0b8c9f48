/**
 * 非交互演示：npm run demo。它的输出会与 expected-output.txt 逐字比对。
 *
 * 它不模拟键盘，而是启动一个真正的 npm start 进程（src/main.ts），
 * 把几行输入从管道喂进去，最后关掉输入——这就是在终端里按 Ctrl+D 的效果。
 */

import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
// 用当前的 node 直接运行 tsx 的入口：不经过 shell，Windows 上也一样。
const tsxCli = createRequire(import.meta.url).resolve("tsx/cli");

/** 把 input 喂给一个新的 CLI 进程，原样打印它的输出。 */
function run(title: string, input: string): void {
  console.log(`=== ${title} ===`);
  console.log(`（输入：${JSON.stringify(input)}）\n`);
  const child = spawnSync(process.execPath, [tsxCli, "src/main.ts"], { cwd: projectRoot, input, encoding: "utf8" });
  process.stdout.write(child.stdout);
  console.log(`（退出码：${child.status}）\n`);
}

console.log("Mini Agent Harness · step01 cli（demo）\n");
run("两句话，然后输入结束（Ctrl+D）", "你好\n\n今天天气不错\n");
run("用 /exit 退出：之后的输入不会再被读取", "第一句\n/exit\n这一句不会被处理\n");
