/**
 * 地址与密钥：用之前先看一眼，打印或保存之前抹掉其中的秘密。写错是配置错误，不是网络错误：不查的话，fetch 要么把它当成
 * 「连不上」去重试，要么把「# 注释」当成路径发出去。这里一句话点名是哪个设置、哪个字符；密钥本身从不打印。
 * 有的服务把密钥放进查询串（?key=…）：这些值同样是秘密。
 */

/** 看不见的字符（零宽空格、BOM、方向控制……）与控制字符。 */
const INVISIBLE = /[\p{Cf}\p{Cc}]/u;
/** 全角与中文标点：中文输入法下最容易打出来的「：」「／」「。」等。 */
const FULL_WIDTH = /[\u3000-\u303f\uff00-\uffef]/u;
const QUOTES = /["'`“”‘’「」]/u;

/** 地址写错了就返回一句说明（name 是它来自的环境变量），没问题返回 undefined。 */
export function baseUrlProblem(name: string, value: string): string | undefined {
  if (value.includes("#")) return `${name} 里有 #：环境变量里不能写注释，# 和它后面的内容会被当成地址的一部分，请删掉（${shown(value)}）`;
  const odd = [...value].findIndex((ch) => INVISIBLE.test(ch) || FULL_WIDTH.test(ch));
  if (odd !== -1) {
    const ch = [...value][odd] ?? "";
    return `${name} 的第 ${odd + 1} 个字符是${describeChar(ch)}：${INVISIBLE.test(ch) ? "多半是复制时带进来的，请删掉它" : "请改成半角字符"}`;
  }
  const quote = QUOTES.exec(value)?.[0];
  if (quote) return `${name} 里有引号 ${quote}：环境变量的值不用加引号，请去掉（${shown(value)}）`;
  if (/\s/.test(value)) return `${name} 里有空格：请删掉（${shown(value)}）`;
  const url = URL.canParse(value) ? new URL(value) : undefined;
  if (url?.protocol !== "http:" && url?.protocol !== "https:") return `${name} 要以 http:// 或 https:// 开头，收到的是：${shown(value)}`;
  if (url.username || url.password) return `${name} 里带着账号口令（user:password@）：fetch 不会发送它们，密钥请放进 HARNESS_API_KEY，地址里去掉这一段`;
  return undefined;
}

/** 密钥写错了就返回一句说明：只说第几个字符、是什么样的字符，不打印密钥。 */
export function apiKeyProblem(name: string, value: string): string | undefined {
  if (QUOTES.test(value.at(0) ?? "") || QUOTES.test(value.at(-1) ?? "")) return `${name} 两头有引号：环境变量的值不用加引号，请去掉`;
  // 密钥要放进请求头：只能是可见的 ASCII 字符，别的字符 fetch 会在发出之前就拒绝
  const odd = [...value].findIndex((ch) => !/^[\x21-\x7e]$/.test(ch));
  if (odd === -1) return undefined;
  return `${name} 的第 ${odd + 1} 个字符是${describeChar([...value][odd] ?? "")}：密钥只由英文字母、数字与符号组成，多半是复制时带进来的，请重新复制`;
}

function describeChar(ch: string): string {
  const code = `U+${(ch.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0")}`;
  if (INVISIBLE.test(ch)) return `看不见的 ${code}`;
  if (/\s/.test(ch)) return `空白 ${code}`;
  return `「${ch}」（${code}${FULL_WIDTH.test(ch) ? "，全角" : ""}）`;
}

/** 说明里引用的地址：账号口令与查询串的值都不照抄，里面夹着空格或换行也一样。 */
function shown(value: string): string {
  return value.replace(/\/\/[^/@]*@/, "//***@").replace(/\?.*$/s, "?…");
}

/** 在代码里直接造的设置（不经过环境变量与启动时的检查）守同样的规矩：写错就抛出同一句说明，不发请求、不重试。 */
export function checkConnectionSettings(config: { baseUrl: unknown; apiKey: unknown }): void {
  const { baseUrl, apiKey } = config;
  const problem =
    typeof baseUrl !== "string" ? `baseUrl 要是一个字符串，收到的是 ${typeof baseUrl}`
    : typeof apiKey !== "string" ? `apiKey 要是一个字符串（没有密钥就写空串），收到的是 ${typeof apiKey}`
    : baseUrlProblem("baseUrl", baseUrl) ?? (apiKey ? apiKeyProblem("apiKey", apiKey) : undefined);
  if (problem) throw new Error(problem);
}

/** 把 path 接到 baseUrl 的路径后面，查询串原样保留；容忍 baseUrl 末尾多写的斜杠。 */
export function joinUrl(baseUrl: string, path: string): string {
  if (!URL.canParse(baseUrl)) return baseUrl.replace(/\/+$/, "") + path; // 解析不了：照旧拼接，让 fetch 报出原本的错误
  const url = new URL(baseUrl);
  url.pathname = url.pathname.replace(/\/+$/, "") + path;
  return url.toString();
}

/** 查询串里这些名字的值当作秘密（不分大小写；- 与 _ 都算）。 */
const SECRET_PARAM = /^(?:key|api[-_]?key|token|access[-_]?token|auth|secret|password|sig|signature|code)$/i;

/** baseUrl 查询串里的秘密值（如 ?key=abc 里的 abc）。 */
export function querySecrets(baseUrl: string): string[] {
  if (!URL.canParse(baseUrl)) return [];
  return [...new URL(baseUrl).searchParams].filter(([name, value]) => SECRET_PARAM.test(name) && value).map(([, value]) => value);
}

/** 文字里查询串形式的 `key=…`、`token=…` 抹成 `key=***`；分隔符还认 &amp;、\u0026 与 URL 编码的 %3F、%26（等号是 %3D）。 */
export function redactUrlQuery(text: string): string {
  return text.replace(/([?&]|&amp;|\\u0026|%3F|%26)([\w-]+)(=|%3D)((?:[^&\s"'<>#\\%]|%(?!26))+)/gi, (whole, sep: string, name: string, eq: string) =>
    SECRET_PARAM.test(name) ? `${sep}${name}${eq}***` : whole,
  );
}

/**
 * 把 secrets 里的每一个都从 text 里抹掉，也认服务器回显时的转义写法：每个字符都可能写成 JSON 的 \" 或 \u002d、
 * HTML 的 &amp; 或 &#45; / &#x2d;、URL 编码的 %2D，混着写也认得。太短的「密钥」（本地服务的占位值）跳过。
 */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let out = redactUrlQuery(text);
  for (const secret of secrets) {
    if (secret.length >= 4) out = out.replace(new RegExp([...secret].map(charForms).join(""), "gi"), "***");
  }
  return out;
}

const HTML_NAMES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" };
const literal = (text: string): string => text.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&");

/** 一个字符的各种写法，拼成正则的一段。 */
function charForms(ch: string): string {
  const code = ch.codePointAt(0) ?? 0;
  const hex = code.toString(16);
  const forms = [literal(ch), literal(JSON.stringify(ch).slice(1, -1)), `\\\\u${hex.padStart(4, "0")}`, `&#0*${code};?`, `&#x0*${hex};?`];
  forms.push(code < 0x80 ? `%${hex.padStart(2, "0")}` : literal(encodeURIComponent(ch)));
  if (ch === "/") forms.push("\\\\/"); // PHP 等会把 / 写成 \/
  if (HTML_NAMES[ch]) forms.push(HTML_NAMES[ch]);
  return `(?:${forms.join("|")})`;
}

/** 打印用的地址：去掉账号口令，查询串里的秘密换成 ***。 */
export function safeUrl(raw: string): string {
  if (!URL.canParse(raw)) return "（地址无法解析）";
  const url = new URL(raw);
  url.username = "";
  url.password = "";
  for (const [name] of url.searchParams) if (SECRET_PARAM.test(name)) url.searchParams.set(name, "***");
  return url.toString();
}
