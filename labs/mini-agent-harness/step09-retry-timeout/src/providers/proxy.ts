/**
 * 代理。Node 的 fetch 默认不看 HTTPS_PROXY 这类环境变量：要 NODE_USE_ENV_PROXY=1 或 --use-env-proxy
 * 才用（Node 22.21、24.5 起；Node 20 没有这个开关）。这里只做两件事：
 *   - 连接失败时，设了代理变量而 Node 没在用它，就把这件事和开关的名字说出来；
 *   - 本机地址（脚本服务器、Ollama）永远直连：Node 在用代理时，也不把它们交给代理。
 */

const PROXY_VARIABLES = ["HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy"];

/** 这个 Node 有没有「fetch 走环境变量里的代理」的开关。 */
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

/**
 * baseUrl 是本机时，把主机名加进 NO_PROXY（小写的 no_proxy 优先，和 Node 读的顺序一样），请求就不经过代理。
 * 写法照 URL 给的 hostname：IPv6 带方括号（[::1]），Node 比较 NO_PROXY 时也带着方括号。
 */
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
