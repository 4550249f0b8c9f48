/**
 * src/local-provider.ts：找不到本地脚本服务器（单独复制出来的步骤目录里没有 labs/scripted-provider/）时
 * 给一行说明、退出码 1；别的加载错误原样抛出，不被这句说明盖住。
 */
import { afterEach, describe, expect, it, vi } from "vitest";

import { loadScriptedProvider } from "../src/local-provider.js";

class Exited extends Error {}

afterEach(() => {
  vi.restoreAllMocks();
});

/** process.exit 换成抛 Exited（测试进程不退出），console.error 收下来 */
function watchExit() {
  const exit = vi.spyOn(process, "exit").mockImplementation(((code?: number) => {
    throw new Exited(`exit ${code}`);
  }) as typeof process.exit);
  const printed = vi.spyOn(console, "error").mockImplementation(() => undefined);
  return { exit, printed };
}

const failingWith = (error: Error) => () => Promise.reject(error);

describe("loadScriptedProvider", () => {
  it.each([
    "Cannot find package 'scripted-provider' imported from /x/src/local-provider.ts", // Node 的 ESM 解析
    "Cannot find module 'scripted-provider'", // CommonJS 风格的说法
  ])("%s：打印一行怎么办，退出码 1", async (message) => {
    const { exit, printed } = watchExit();
    await expect(loadScriptedProvider(failingWith(new Error(message)))).rejects.toThrow(Exited);
    expect(exit).toHaveBeenCalledWith(1);
    expect(printed).toHaveBeenCalledTimes(1);
    expect(String(printed.mock.calls[0]?.[0])).toMatch(/^找不到本地脚本服务器（仓库里的 labs\/scripted-provider\/）：.*npm ci.*HARNESS_API_KEY/);
  });

  it.each(["Cannot find package 'other-package'", "SyntaxError: Unexpected token in scripted-provider", "Cannot find package scripted-provider"])(
    "别的加载错误（%s）原样抛出，不打印、不退出",
    async (message) => {
      const error = new Error(message);
      const { exit, printed } = watchExit();
      await expect(loadScriptedProvider(failingWith(error))).rejects.toBe(error);
      expect(exit).not.toHaveBeenCalled();
      expect(printed).not.toHaveBeenCalled();
    },
  );

  it("默认加载仓库里的工具包", async () => {
    const mod = await loadScriptedProvider();
    expect(typeof mod.startProviderServer).toBe("function");
    expect(typeof mod.scriptedProvider).toBe("function");
  });
});
