/**
 * 把各种失败翻译成一行 errorMessage。措辞保留服务器与 Node 的原文（429、overloaded、
 * ECONNREFUSED……），下一步的重试分类器正是靠这些原文判断「能不能重试」。
 */
import { describeError } from "../guards/shown.js";
import { describeTlsProblem, localRefusalHint, MAX_REDIRECTS, proxyHint, redirectTarget } from "./guards/network.js";
import { StreamGuardError } from "./guards/stream.js";

/** 从错误响应的 JSON 里取出「类型：说明」。多数服务把它放在 error 字段里，也有直接放在顶层的：
 *  OpenAI    {"error":{"message","type","code"}}
 *  Anthropic {"type":"error","error":{"type","message"}}
 *  硅基流动  {"code":30011,"message":"…","data":null}（vLLM 旧版也不套 error：{"object":"error","message","type","code":400}） */
export function errorDetail(body: unknown): string | undefined {
  if (typeof body !== "object" || body === null) return undefined;
  const error = (body as { error?: unknown }).error;
  if (typeof error === "string") return error; // 有的兼容服务器（如 Ollama）直接给一句话
  const fields = typeof error === "object" && error !== null ? error : typeof (body as { message?: unknown }).message === "string" ? body : undefined;
  if (fields === undefined) return undefined;
  const { type, code, message } = fields as { type?: unknown; code?: unknown; message?: unknown };
  // 类型优先；没有就用错误码（字符串，或硅基流动那样的整数）
  const kind = typeof type === "string" && type ? type : typeof code === "string" && code ? code : Number.isSafeInteger(code) ? String(code) : undefined;
  const text = typeof message === "string" ? message : undefined;
  if (kind && text) return `${kind}：${text}`;
  return text ?? kind;
}

/** 非 2xx 响应 → `HTTP 401：authentication_error：invalid x-api-key`。 */
export async function describeHttpError(response: Response): Promise<string> {
  const redirect = describeRedirect(response);
  if (redirect) {
    await response.body?.cancel().catch(() => {});
    return `HTTP ${response.status}：${redirect}`;
  }
  const { text, cut } = await readHead(response, MAX_ERROR_BODY_BYTES);
  let detail: string | undefined;
  try {
    detail = errorDetail(JSON.parse(text));
  } catch {
    detail = undefined; // 不是 JSON（比如网关的 HTML 错误页）
  }
  detail ??= text.trim().slice(0, 200) || response.statusText;
  const note = cut ? `（错误正文超过 ${MAX_ERROR_BODY_BYTES / 1024} KB，只读了开头）` : "";
  return detail ? `HTTP ${response.status}：${detail}${note}` : `HTTP ${response.status}${note}`;
}

/** 错误正文最多读这么多字节（解压之后算）：说明原因用不着更多，1 GB 的 gzip 炸弹也只花这么点内存。 */
export const MAX_ERROR_BODY_BYTES = 16 * 1024;

/** 读正文的开头，最多 limit 字节；读满（或读不下去）就停下并断开连接。cut：后面还有没读的。 */
async function readHead(response: Response, limit: number): Promise<{ text: string; cut: boolean }> {
  const reader = response.body?.getReader();
  let head = Buffer.alloc(0);
  try {
    for (let next = await reader?.read(); next?.value && head.byteLength <= limit; next = await reader?.read()) head = Buffer.concat([head, next.value]);
  } catch {
    // 读到一半断了：有多少说多少
  }
  reader?.cancel().catch(() => {});
  return { text: new TextDecoder().decode(head.subarray(0, limit)), cut: head.byteLength > limit };
}

/** fetchSameOrigin 没有跟随的重定向：点名要去的主机（只报主机，不报路径与查询串）。 */
function describeRedirect(response: Response): string | undefined {
  const target = redirectTarget(response, response.url || "http://unknown.invalid/");
  if (!target) return undefined;
  const to = new URL(target);
  if (response.url && to.origin === new URL(response.url).origin) return `同一主机内重定向超过 ${MAX_REDIRECTS} 次，放弃`;
  return `服务器要求改去另一个主机 ${to.host}，没有跟随：密钥只发给你配置的主机（要用它，请把 HARNESS_BASE_URL 直接设成那里）`;
}

/** 读出一个异常的说明与错误码。Node 的 fetch 把真正的原因放在 cause 里，外层常常只有一句 fetch failed。 */
function reasonOf(error: unknown): string {
  try {
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause : undefined;
    const message = [describeError(error), cause && describeError(cause)].filter((m) => m && m !== "fetch failed").join("：") || "fetch failed";
    const code = (cause as { code?: unknown } | undefined)?.code ?? (error as { code?: unknown } | null | undefined)?.code;
    return typeof code === "string" && !message.includes(code) ? `${message}（${code}）` : message;
  } catch {
    return describeError(error); // 外来的值连读一个属性都会抛（Proxy、会抛错的 getter）
  }
}

/** 连响应都没拿到：`网络错误：connect ECONNREFUSED …`。URL 里的账号口令抹掉；本机的端口没人在听、代理没被用上时各多一句。 */
export function describeNetworkError(error: unknown): string {
  const reason = reasonOf(error).replace(/\/\/[^/@\s]+@/g, "//***@");
  return describeTlsProblem(error, reason) ?? `网络错误：${reason}${localRefusalHint(error) ?? proxyHint()}`;
}

/** 响应已经开始、读到一半断了：`流在结束前中断：other side closed（UND_ERR_SOCKET）`。 */
export function describeStreamCut(error: unknown): string {
  if (error instanceof StreamGuardError) return error.message; // 防线自己停下的，不是断流
  return `流在结束前中断：${reasonOf(error)}`;
}

/** 200 却不是事件流：说清楚来的是什么类型、开头是什么。措辞里的「不是事件流」让重试层认得它、不去重试。 */
export async function describeNotEventStream(response: Response): Promise<string> {
  // 只读开头：一个写错地址返回的大文件不必整个下载
  const head = (await readHead(response, 1024)).text.slice(0, 120).replace(/\s+/g, " ").trim();
  const type = response.headers.get("content-type") ?? "未知类型";
  return `服务器返回的不是事件流（content-type: ${type}）${head ? `，开头是：${head}` : ""}。请检查 HARNESS_BASE_URL`;
}

