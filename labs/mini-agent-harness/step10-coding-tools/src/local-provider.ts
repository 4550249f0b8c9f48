/**
 * 本地脚本服务器：没配置密钥时 npm start 连的、demo 与测试用的，都是它。
 * 它是仓库里的工具包 labs/scripted-provider/：测试工具，不是这一章要学的东西，所以不复制进每一步。
 * 这里只做两件事：把本步骤的剧本（fake-model.ts 的 decideReply）交给它；找不到它时说清楚怎么办。
 */

import type { ProviderServer, ScriptedProviderOptions } from "scripted-provider";
import { decideReply } from "./fake-model.js";

export type { Fault, ProviderServer } from "scripted-provider";
type ScriptedProviderModule = typeof import("scripted-provider");

/** 起一个按 rules.ts 回答的本地服务器（127.0.0.1，系统挑的空闲端口），两种协议都会说。 */
export async function startLocalProvider(options: Omit<ScriptedProviderOptions, "answer"> = {}, env: NodeJS.ProcessEnv = process.env): Promise<ProviderServer> {
  const { startProviderServer, scriptedProvider } = await loadScriptedProvider();
  return startProviderServer(scriptedProvider({ answer: decideReply, env, ...options }));
}

/**
 * 用到时才加载工具包：单独复制出来的步骤目录里没有它，配了真实模型的 npm start 照样能用；
 * 真要用本地服务器时，抛出一句说明（调用方打印它、退出码 1），而不是一屏模块解析的报错。load 只给测试换掉加载这一步。
 */
export async function loadScriptedProvider(load: () => Promise<ScriptedProviderModule> = () => import("scripted-provider")): Promise<ScriptedProviderModule> {
  try {
    return await load();
  } catch (error) {
    if (!/Cannot find (package|module) 'scripted-provider'/.test(String(error))) throw error;
    throw new Error("找不到本地脚本服务器（仓库里的 labs/scripted-provider/）：请在完整的仓库里运行（根目录 npm ci），或者设置 HARNESS_API_KEY 连真实模型。");
  }
}
