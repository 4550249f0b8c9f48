/**
 * 时限参数的范围（issue 12 第 13 条）：Node 的定时器最多等 2³¹−1 毫秒，
 * 更大的值会被悄悄换成 1 毫秒。所以超过上限的值在解析参数时就拒绝：打印用法，退出码 2。
 */

import { describe, expect, it } from "vitest";

import { makeSandbox, removeSandbox } from "./helpers/cli.js";
import { runCli } from "./helpers/in-process.js";

describe("--model-timeout / --tool-timeout 的上限", () => {
  it.each(["--model-timeout", "--tool-timeout"])("%s 2147483648：打印原因与用法，退出码 2", async (flag) => {
    const sandbox = makeSandbox();
    try {
      const result = await runCli(sandbox, [flag, "2147483648"], "我叫小明\n");
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`${flag} 最大是 2147483647`);
      expect(result.stderr).toContain("用法：npm start --");
      expect(result.stdout).not.toContain("你好，小明");
    } finally {
      removeSandbox(sandbox);
    }
  });

  // 「正好 2147483647：接受，照常回复」和 cli-retry.test.ts 的溢出用例在同一个 CLI 进程里测（少起一个进程）
});
