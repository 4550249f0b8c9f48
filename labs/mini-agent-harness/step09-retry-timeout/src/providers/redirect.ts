/**
 * 重定向自己处理，不交给 fetch。
 *
 * fetch 默认会跟着 301/302/307/308 走，跨到别的主机时只去掉 Authorization 头——
 * Anthropic 的 x-api-key 会被原样发给一个用户从没配置过的主机。所以我们用 redirect: "manual"：
 * 同一个源（协议、主机、端口都相同）内的重定向最多跟 MAX_REDIRECTS 次，每次原样重发同一个请求；
 * 跨源的一律不跟，把这个 3xx 响应交回去，由 describeHttpError 说清楚要去的是哪个主机。
 */

export const MAX_REDIRECTS = 3;

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** 发请求；同源重定向照跟，跨源的（或跟了太多次的）原样返回那个 3xx 响应。 */
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
  if (!REDIRECT_STATUSES.has(response.status) || !location) return undefined;
  try {
    return new URL(location, from).toString();
  } catch {
    return undefined;
  }
}
