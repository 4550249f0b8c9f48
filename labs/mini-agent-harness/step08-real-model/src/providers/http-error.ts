/**
 * 把各种失败翻译成一行 errorMessage。措辞保留服务器与 Node 的原文（429、overloaded、
 * ECONNREFUSED……），下一步的重试分类器正是靠这些原文判断「能不能重试」。
 */

/** 从错误响应的 JSON 里取出「类型：说明」。两家的格式都把它放在 error 字段里：
 *  OpenAI   {"error":{"message","type","code"}}
 *  Anthropic {"type":"error","error":{"type","message"}} */
export function errorDetail(body: unknown): string | undefined {
  if (typeof body !== "object" || body === null) return undefined;
  const error = (body as { error?: unknown }).error;
  if (typeof error === "string") return error; // 有的兼容服务器（如 Ollama）直接给一句话
  if (typeof error !== "object" || error === null) return undefined;
  const { type, code, message } = error as { type?: unknown; code?: unknown; message?: unknown };
  const kind = typeof type === "string" && type ? type : typeof code === "string" && code ? code : undefined;
  const text = typeof message === "string" ? message : undefined;
  if (kind && text) return `${kind}：${text}`;
  return text ?? kind;
}

/** 非 2xx 响应 → `HTTP 401：authentication_error：invalid x-api-key`。 */
export async function describeHttpError(response: Response): Promise<string> {
  let text = "";
  try {
    text = await response.text();
  } catch {
    // 连错误正文都没读到：只报状态码
  }
  let detail: string | undefined;
  try {
    detail = errorDetail(JSON.parse(text));
  } catch {
    detail = undefined; // 不是 JSON（比如网关的 HTML 错误页）
  }
  detail ??= text.trim().slice(0, 200) || response.statusText;
  return detail ? `HTTP ${response.status}：${detail}` : `HTTP ${response.status}`;
}

/** 读出一个异常的说明与错误码。Node 的 fetch 把真正的原因放在 cause 里，外层常常只有一句 fetch failed。 */
function reasonOf(error: unknown): string {
  const outer = error instanceof Error ? error : new Error(String(error));
  const cause = outer.cause instanceof Error ? outer.cause : undefined;
  const message = [outer.message, cause?.message].filter((m) => m && m !== "fetch failed").join("：") || "fetch failed";
  const code = (cause as { code?: unknown } | undefined)?.code ?? (outer as { code?: unknown }).code;
  return typeof code === "string" && !message.includes(code) ? `${message}（${code}）` : message;
}

/** 连响应都没拿到：`网络错误：connect ECONNREFUSED …`。fetch 的原文可能带着整个 URL，其中的账号口令要抹掉。 */
export function describeNetworkError(error: unknown): string {
  return `网络错误：${reasonOf(error).replace(/\/\/[^/@\s]+@/g, "//***@")}`;
}

/** 响应已经开始、读到一半断了：`流在结束前中断：other side closed（UND_ERR_SOCKET）`。 */
export function describeStreamCut(error: unknown): string {
  return `流在结束前中断：${reasonOf(error)}`;
}

/** 服务器可能把收到的密钥原样写进错误信息：出门之前一律抹掉。 */
export function redactSecret(text: string, secret: string): string {
  // 太短的「密钥」（如本地服务的占位值）抹掉只会把正常字句弄花
  if (secret.length < 4) return text;
  return text.split(secret).join("***");
}
