/**
 * 连接这一步的防线。重定向自己处理：fetch 跟着 3xx 跨到别的主机时只去掉 Authorization 头，Anthropic 的 x-api-key
 * 会被原样发给一个用户从没配置过的主机，所以只跟同源的，跨源的交回那个 3xx，由 describeHttpError 点名主机。
 * Node 的 fetch 默认不看 HTTPS_PROXY：连不上时把开关说出来，本机地址永远直连。本机的端口没人在听、证书不受信任、
 * http 与 https 写反：重连一百次也一样，说成一句告诉用户怎么改的话。
 */
import net from "node:net";
import tls from "node:tls";

import { errorCode, tryOr } from "../../guards/shown.js";
import { checkConnectionSettings, joinUrl } from "./settings.js";

/** streamRequest 发请求用的 fetch：设置写错就在这里抛，不发请求；只跟同源的重定向，http 与 https 写反时说出来。 */
export function guardedFetch(config: { baseUrl: string; apiKey: string }, path: string, doFetch: typeof fetch): (init: RequestInit) => Promise<Response> {
  checkConnectionSettings(config);
  const url = joinUrl(config.baseUrl, path);
  return (init) => fetchSameOrigin(diagnoseWrongScheme(doFetch), url, init);
}

export const MAX_REDIRECTS = 3;

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** 发请求（redirect: "manual"）：同源的重定向原样重发，最多 MAX_REDIRECTS 次；跨源的（或跟了太多次的）交回那个 3xx 响应。 */
export async function fetchSameOrigin(doFetch: typeof fetch, url: string, init: RequestInit): Promise<Response> {
  let current = url;
  for (let hops = 0; ; hops++) {
    const response = await doFetch(current, { ...init, redirect: "manual" });
    const target = redirectTarget(response, current);
    if (!target || hops >= MAX_REDIRECTS || new URL(target).origin !== new URL(current).origin) return response;
    await response.body?.cancel().catch(() => {}); // 丢掉 3xx 的正文，释放连接
    current = target;
  }
}

/** 3xx 要把我们带去哪里（已按当前地址解析成绝对地址）；不是重定向或没有 Location 时返回 undefined。 */
export function redirectTarget(response: Response, from: string): string | undefined {
  const location = response.headers.get("location");
  if (!REDIRECT_STATUSES.has(response.status) || !location || !URL.canParse(location, from)) return undefined;
  return new URL(location, from).toString();
}

const PROXY_VARIABLES = ["HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy"];

/** 这个 Node 有没有「fetch 走环境变量里的代理」的开关（NODE_USE_ENV_PROXY=1 或 --use-env-proxy，Node 22.21、24.5 起；Node 20 没有）。 */
export function nodeHasProxySwitch(version = process.versions.node): boolean {
  const [major = 0, minor = 0] = version.split(".").map(Number);
  return major > 24 || (major === 24 && minor >= 5) || (major === 22 && minor >= 21);
}

/** 接在「网络错误」那一行后面的提示：设了代理变量、Node 却没在用它时才有，否则是空串。 */
export function proxyHint(env: NodeJS.ProcessEnv = process.env, execArgv = process.execArgv): string {
  const name = PROXY_VARIABLES.find((variable) => env[variable]);
  if (name === undefined) return "";
  const switchedOn = env.NODE_USE_ENV_PROXY === "1" || [...execArgv, env.NODE_OPTIONS ?? ""].some((arg) => arg.includes("--use-env-proxy"));
  if (switchedOn && nodeHasProxySwitch()) return "";
  const how = nodeHasProxySwitch()
    ? "要走代理，请这样启动：NODE_USE_ENV_PROXY=1 npm start（或 node --use-env-proxy）"
    : `Node ${process.version} 没有这个开关，请换 Node 22.21 / 24.5 或更新，再用 NODE_USE_ENV_PROXY=1 npm start`;
  return `。设置了 ${name}，但 Node 的 fetch 没有用它：${how}`;
}

/** baseUrl 是本机时（脚本服务器、Ollama）把主机名加进 NO_PROXY（小写的优先，和 Node 一样；IPv6 带方括号，Node 比较时也带）。 */
export function keepLoopbackDirect(baseUrl: string, env: NodeJS.ProcessEnv = process.env): void {
  const host = URL.canParse(baseUrl) ? new URL(baseUrl).hostname : "";
  if (!isLoopback(host)) return;
  const name = env.no_proxy !== undefined ? "no_proxy" : "NO_PROXY";
  const entries = (env[name] ?? "").split(",").map((entry) => entry.trim()).filter(Boolean);
  if (!entries.includes(host)) env[name] = [...entries, host].join(",");
}

/** 本机的地址：localhost（及 *.localhost）、127.0.0.0/8、::1，以及 IPv4 映射的 ::ffff:127.x.x.x。URL 已经把各种写法规范成这几种。 */
export function isLoopback(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, "");
  if (host === "localhost" || host.endsWith(".localhost")) return true;
  if (/^127\.\d+\.\d+\.\d+$/.test(host)) return true;
  return host === "[::1]" || /^\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\]$/.test(host);
}

/** 本机拒绝连接的提示里固定的一段：step09 的分类器凭它认出这种失败，不再重试。 */
export const NOBODY_LISTENING = "本机的这个端口上没有服务在听";

/** 本机拒绝连接（本地的服务器没开、端口写错）时的提示；远端拒绝连接可能正在重启，照旧重试，不加提示。 */
export function localRefusalHint(error: unknown, env: NodeJS.ProcessEnv = process.env): string | undefined {
  // 外来的值连读一个属性都会抛（Proxy、会抛错的 getter）：那就不加提示
  return tryOr(undefined, () => {
    const cause = error instanceof Error && error.cause !== undefined ? error.cause : error;
    // Node 22 起连 localhost 会把 ::1 与 127.0.0.1 都试一遍，两次失败装在一个 AggregateError 里
    const attempts: unknown[] = cause instanceof AggregateError ? cause.errors : [cause];
    const refused = attempts.map((attempt) => attempt as { code?: unknown; address?: unknown; port?: unknown });
    if (refused.length === 0 || !refused.every((r) => r.code === "ECONNREFUSED" && loopbackAddress(r.address))) return undefined;
    // 拒绝连接的是本机的代理（而不是模型服务）：那是代理没开，不归这里说
    if (refused.some((r) => isLocalProxyPort(r.port, env))) return undefined;
    return `——${NOBODY_LISTENING}：请核对启动时「模型：」那一行的地址（HARNESS_BASE_URL），再看本地的服务器开着没有（例如 Ollama 要先 ollama serve）`;
  });
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

/** 自签名、公司网络的中间人证书、缺了中间证书：「这台机器不认识签发它的 CA」；别的证书问题（过期、主机不符）；http 端口上说 https（OpenSSL 把「HTTP/1.1 400」当 TLS 记录读）。 */
const UNTRUSTED = /^(?:DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_GET_ISSUER_CERT(?:_LOCALLY)?|UNABLE_TO_VERIFY_LEAF_SIGNATURE|CERT_UNTRUSTED)$/;
const BAD_CERT = /CERT|ERR_TLS_CERT_ALTNAME_INVALID/;
const PLAIN_PORT = /^ERR_SSL_(?:WRONG_VERSION_NUMBER|PACKET_LENGTH_TOO_LONG|UNKNOWN_PROTOCOL)$/;
const CA_HINT = "如果这是自签名或公司网络的证书：把签发它的 CA 证书存成 PEM 文件，再用 NODE_EXTRA_CA_CERTS=<文件路径> npm start 启动";
const WRONG_SCHEME = "ERR_HTTP_TO_HTTPS_PORT";
const SPEAKS_HTTPS = "TLS 错误：这个端口说的是 HTTPS：请把 HARNESS_BASE_URL 里的 http:// 改成 https://";

/** 连接失败若是 TLS 的问题，返回一句说明（以「TLS 错误：」开头，重试层认得它）；否则 undefined。 */
export function describeTlsProblem(error: unknown, reason: string): string | undefined {
  const code = codeOf(error);
  if (code === WRONG_SCHEME) return SPEAKS_HTTPS;
  if (code === undefined) return undefined;
  if (UNTRUSTED.test(code)) return `TLS 错误：服务器的证书不受信任（${reason}）。${CA_HINT}`;
  if (PLAIN_PORT.test(code)) return "TLS 错误：这个端口说的是普通 HTTP，不是 HTTPS：请把 HARNESS_BASE_URL 里的 https:// 改成 http://";
  if (BAD_CERT.test(code)) return `TLS 错误：服务器的证书不能用（${reason}）`;
  return undefined;
}

/** http:// 的连接没等到回答就被关掉时试一次 TLS 握手：成功就是写反了，换成一个说明（错误码 ERR_ 开头：重试层不重试它）。 */
export function diagnoseWrongScheme(doFetch: typeof fetch): typeof fetch {
  return async (input, init) => {
    try {
      return await doFetch(input, init);
    } catch (error) {
      const url = typeof input === "string" && URL.canParse(input) ? new URL(input) : undefined;
      const closedBeforeAnswer = codeOf(error) === "UND_ERR_SOCKET" || codeOf(error) === "ECONNRESET";
      if (url?.protocol === "http:" && closedBeforeAnswer && !init?.signal?.aborted && (await speaksTls(url))) {
        throw Object.assign(new Error(SPEAKS_HTTPS), { code: WRONG_SCHEME });
      }
      throw error;
    }
  };
}

/** 错误码：Node 的 fetch 放在 cause 里，别的在错误本身上；外来的值读不出来就是 undefined。 */
function codeOf(error: unknown): string | undefined {
  return tryOr(undefined, () => errorCode(error instanceof Error ? error.cause : undefined)) ?? errorCode(error);
}

/** 那个端口能不能完成一次 TLS 握手（不验证证书：只想知道它说不说 TLS）。最多等 3 秒。 */
function speaksTls(url: URL): Promise<boolean> {
  const host = url.hostname.replace(/^\[|\]$/g, "");
  return new Promise((resolve) => {
    const socket = tls.connect({ host, port: Number(url.port || 80), servername: net.isIP(host) ? undefined : host, rejectUnauthorized: false });
    const done = (answer: boolean): void => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(3000, () => done(false));
    socket.once("secureConnect", () => done(true));
    socket.once("error", () => done(false));
    socket.once("close", () => done(false));
  });
}
