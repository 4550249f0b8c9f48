/**
 * 本机的地址拒绝了连接（ECONNREFUSED）：那个端口上没有程序在听。多半是本地的服务器没开
 * （Ollama、vLLM、llama.cpp、脚本服务器），或者 HARNESS_BASE_URL 的端口写错了。
 * 等几秒它也不会自己开起来，重试只是白等（step09 三次回合重试要等 20 秒），
 * 所以这一句说清楚该查什么；step09 的重试分类认得这句话，不再重试。远端的地址拒绝连接照旧重试：那边可能正在重启。
 */
import { isLoopback } from "./proxy.js";

/** 提示里固定的一段：重试的分类器（step09 的 classify.ts）凭它认出这种失败。 */
export const NOBODY_LISTENING = "本机的这个端口上没有服务在听";

const PROXY_VARIABLES = ["HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy"];

/** 接在「网络错误：connect ECONNREFUSED 127.0.0.1:11434」后面的提示；不是本机拒绝连接时是 undefined。 */
export function localRefusalHint(error: unknown, env: NodeJS.ProcessEnv = process.env): string | undefined {
  try {
    const cause = error instanceof Error && error.cause !== undefined ? error.cause : error;
    // Node 22 起连 localhost 会把 ::1 与 127.0.0.1 都试一遍，两次失败装在一个 AggregateError 里
    const attempts: unknown[] = cause instanceof AggregateError ? cause.errors : [cause];
    const refused = attempts.map((attempt) => attempt as { code?: unknown; address?: unknown; port?: unknown });
    if (refused.length === 0 || !refused.every((r) => r.code === "ECONNREFUSED" && loopbackAddress(r.address))) return undefined;
    // 拒绝连接的是本机的代理（而不是模型服务）：那是代理没开，不归这里说
    if (refused.some((r) => isLocalProxyPort(r.port, env))) return undefined;
    return `——${NOBODY_LISTENING}：请核对启动时「模型：」那一行的地址（HARNESS_BASE_URL），再看本地的服务器开着没有（例如 Ollama 要先 ollama serve）`;
  } catch {
    return undefined; // 外来的值连读一个属性都会抛（Proxy、会抛错的 getter）：不加提示
  }
}

/** 套接字报的地址（127.0.0.1、::1、::ffff:127.0.0.1）是不是本机。 */
function loopbackAddress(address: unknown): boolean {
  if (typeof address !== "string") return false;
  return isLoopback(address.replace(/^::ffff:(?=\d)/i, "")) || isLoopback(`[${address}]`);
}

function isLocalProxyPort(port: unknown, env: NodeJS.ProcessEnv): boolean {
  return PROXY_VARIABLES.some((name) => {
    const value = env[name];
    if (!value || !URL.canParse(value)) return false;
    const url = new URL(value);
    return isLoopback(url.hostname) && Number(url.port || (url.protocol === "https:" ? 443 : 80)) === port;
  });
}
