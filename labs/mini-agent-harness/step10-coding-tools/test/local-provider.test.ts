/**
 * src/local-provider.ts：找不到本地脚本服务器（单独复制出来的步骤目录里没有 labs/scripted-provider/）时
 * 抛出一句说明（调用方打印它、退出码 1）；别的加载错误原样抛出，不被这句说明盖住。
 */
import { afterEach, describe, expect, it, vi } from "vitest";

import { loadScriptedProvider } from "../src/local-provider.js";
import { withoutProvider } from "./helpers/provider-dir.js";

afterEach(() => {
  vi.restoreAllMocks();
});

const failingWith = (error: Error) => () => Promise.reject(error);

describe("loadScriptedProvider", () => {
  it.each([
    "Cannot find package 'scripted-provider' imported from /x/src/local-provider.ts", // Node 的 ESM 解析
    "Cannot find module 'scripted-provider'", // CommonJS 风格的说法
  ])("%s：换成一句怎么办（调用方打印它、退出码 1），不打印、不退出", async (message) => {
    const exit = vi.spyOn(process, "exit");
    const printed = vi.spyOn(console, "error");
    await expect(loadScriptedProvider(failingWith(new Error(message)))).rejects.toThrow(/^找不到本地脚本服务器（仓库里的 labs\/scripted-provider\/）：.*npm ci.*HARNESS_API_KEY/);
    expect(exit).not.toHaveBeenCalled();
    expect(printed).not.toHaveBeenCalled();
  });

  it.each(["Cannot find package 'other-package'", "SyntaxError: Unexpected token in scripted-provider", "Cannot find package scripted-provider"])(
    "别的加载错误（%s）原样抛出",
    async (message) => {
      const error = new Error(message);
      await expect(loadScriptedProvider(failingWith(error))).rejects.toBe(error);
    },
  );
  it.skipIf(withoutProvider)("默认加载仓库里的工具包", async () => {
    const mod = await loadScriptedProvider();
    expect(typeof mod.startProviderServer).toBe("function");
    expect(typeof mod.scriptedProvider).toBe("function");
  });
});
