/**
 * 从环境变量选出模型服务，并造出对应的 StreamFn。
 * 对循环来说真实模型与 FakeModel 没有区别：都是一个 StreamFn。
 */
import type { StreamFn } from "../types.js";
import { createAnthropicStream } from "./anthropic-messages.js";
import type { ConnectionConfig } from "./config.js";
import { keepLoopbackDirect } from "./guards/network.js";
import { apiKeyProblem, baseUrlProblem, joinUrl, safeUrl } from "./guards/settings.js";
import { createOpenAIStream } from "./openai-completions.js";

export type ProviderApi = "openai" | "anthropic";

export interface ProviderConfig extends ConnectionConfig {
  api: ProviderApi;
}

export type ResolvedProvider =
  | {
      ok: true;
      config: ProviderConfig;
      /** 用户是否指向了真实服务（给了密钥或 HARNESS_BASE_URL）；否则调用方改用本地脚本服务器。 */
      configured: boolean;
      /** 密钥取自哪个环境变量（只报名字，不报值）。 */
      keySource: string | undefined;
    }
  | { ok: false; error: string };

const DEFAULTS: Record<ProviderApi, { baseUrl: string; model: string; keyVar: string }> = {
  openai: { baseUrl: "https://api.openai.com/v1", model: "gpt-4o-mini", keyVar: "OPENAI_API_KEY" },
  anthropic: { baseUrl: "https://api.anthropic.com", model: "claude-sonnet-4-5", keyVar: "ANTHROPIC_API_KEY" },
};

export function resolveProviderConfig(env: Record<string, string | undefined>): ResolvedProvider {
  const get = (name: string): string | undefined => env[name]?.trim() || undefined;
  const apiName = (get("HARNESS_API") ?? "openai").toLowerCase();
  if (apiName !== "openai" && apiName !== "anthropic") {
    return { ok: false, error: `HARNESS_API 只能是 openai 或 anthropic，收到的是：${env.HARNESS_API}` };
  }
  const api: ProviderApi = apiName;
  const defaults = DEFAULTS[api];
  const keySource = get("HARNESS_API_KEY") ? "HARNESS_API_KEY" : get(defaults.keyVar) ? defaults.keyVar : undefined;
  const baseUrl = get("HARNESS_BASE_URL");
  const apiKey = keySource ? (get(keySource) ?? "") : "";
  const problem = (baseUrl && baseUrlProblem("HARNESS_BASE_URL", baseUrl)) || (keySource && apiKeyProblem(keySource, apiKey));
  if (problem) return { ok: false, error: problem };
  const config: ProviderConfig = { api, baseUrl: baseUrl ?? defaults.baseUrl, apiKey, model: get("HARNESS_MODEL") ?? defaults.model };
  return { ok: true, config, configured: keySource !== undefined || baseUrl !== undefined, keySource };
}

export function createProviderStream(config: ProviderConfig, env: NodeJS.ProcessEnv = process.env): StreamFn {
  keepLoopbackDirect(config.baseUrl, env); // 本机的服务器（脚本服务器、Ollama）不经过代理
  return config.api === "anthropic" ? createAnthropicStream(config) : createOpenAIStream(config);
}

/** 请求真正发往的地址。 */
export function endpointOf(config: Pick<ProviderConfig, "api" | "baseUrl">): string {
  return joinUrl(config.baseUrl, config.api === "anthropic" ? "/v1/messages" : "/chat/completions");
}

/** 启动时打印的一行说明。只用 model 与地址，绝不碰密钥；地址里的账号口令去掉，查询串里的秘密换成 ***。 */
export function describeProvider(config: Pick<ProviderConfig, "api" | "baseUrl" | "model">): string {
  const protocol = config.api === "anthropic" ? "Anthropic Messages" : "OpenAI Chat Completions";
  return `模型：${config.model}（${protocol}，${safeUrl(endpointOf(config))}）`;
}
