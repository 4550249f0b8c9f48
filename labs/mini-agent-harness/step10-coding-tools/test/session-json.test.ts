/**
 * issue 22 第 5 条，从命令行看：扩展和会话在同一个进程里，扩展改掉 Object.prototype.toJSON，
 * JSON.stringify 就会把每条消息写成 {}。会话写之前核对每一行，对不上就一句话拒绝写入，文件里没有垃圾。
 * 在子进程里跑：改掉的 Object.prototype 是整个进程的，放在测试进程里会连 vitest 自己一起弄坏。
 */

import fs from "node:fs";
import path from "node:path";
import { expect, it } from "vitest";

import { makeSandbox, removeSandbox, runCliProcess, withoutProvider } from "./helpers/cli.js";
import { extensionScratch } from "./helpers/extension-scratch.js";

const scratch = extensionScratch("harness-json-");

it.skipIf(withoutProvider)("扩展设置了 Object.prototype.toJSON：一句话拒绝写入，程序照常退出，会话文件里没有一行垃圾", async () => {
  const sandbox = makeSandbox();
  try {
    const extension = scratch.writeExtension("to-json.mjs", "export default function () {\n  Object.prototype.toJSON = function () { return {}; };\n}\n");
    const result = await runCliProcess(sandbox, ["--extension", extension], "我叫小明\n我叫什么\n");
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr.match(/\[会话未保存\]/g)).toHaveLength(1);
    expect(result.stderr).toContain("Object.prototype.toJSON");
    expect(result.stderr).toContain("「我叫小明」");
    expect(result.stdout.trimEnd().endsWith("再见。")).toBe(true);
    const dir = path.join(sandbox, ".sessions");
    const written = fs.existsSync(dir) ? fs.readdirSync(dir).filter((name) => name.endsWith(".jsonl")) : [];
    for (const name of written) expect(fs.readFileSync(path.join(dir, name), "utf8")).toBe("");
  } finally {
    removeSandbox(sandbox);
  }
});
