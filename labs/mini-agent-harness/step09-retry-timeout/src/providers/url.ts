/**
 * 地址与密钥：把路径接到 baseUrl 上，以及「打印或保存之前先抹掉秘密」。
 * Azure 一类的服务把参数放在查询串里（…/v1?api-version=…），有的还把密钥也放进去（?key=…）。
 */

/** 查询串里这些名字的值当作秘密（不分大小写；- 与 _ 都算）。 */
const SECRET_PARAM = /^(?:key|api[-_]?key|token|access[-_]?token|auth|secret|password|sig|signature|code)$/i;

/** 把 path 接到 baseUrl 的路径后面，查询串原样保留；容忍 baseUrl 末尾多写的斜杠。 */
export function joinUrl(baseUrl: string, path: string): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return baseUrl.replace(/\/+$/, "") + path; // 解析不了：照旧拼接，让 fetch 报出原本的错误
  }
  url.pathname = url.pathname.replace(/\/+$/, "") + path;
  return url.toString();
}

/** baseUrl 查询串里的秘密值（如 ?key=abc 里的 abc）。 */
export function querySecrets(baseUrl: string): string[] {
  try {
    return [...new URL(baseUrl).searchParams].filter(([name, value]) => SECRET_PARAM.test(name) && value).map(([, value]) => value);
  } catch {
    return [];
  }
}

/**
 * 文字里任何查询串形式的 `key=…`、`token=…` 一律抹成 `key=***`。
 * 分隔符除了 ? 与 &，还认 HTML 转义的 &amp;、JSON 转义的 \u0026，以及 URL 编码的 %3F、%26（等号是 %3D）。
 */
export function redactUrlQuery(text: string): string {
  return text.replace(/([?&]|&amp;|\\u0026|%3F|%26)([\w-]+)(=|%3D)((?:[^&\s"'<>#\\%]|%(?!26))+)/gi, (whole, sep: string, name: string, eq: string) =>
    SECRET_PARAM.test(name) ? `${sep}${name}${eq}***` : whole,
  );
}

/**
 * 把 secrets 里的每一个都从 text 里抹掉：原样的，以及服务器回显时可能用的转义写法——每个字符都可能写成
 * JSON 的 \" 或 \u002d、HTML 的 &amp; 或数字引用 &#45; / &#x2d;、URL 编码的 %2D，混着写也认得（不分大小写）。
 * 太短的「密钥」（如本地服务的占位值）抹掉只会把正常字句弄花，跳过。
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
  try {
    const url = new URL(raw);
    url.username = "";
    url.password = "";
    for (const [name] of url.searchParams) if (SECRET_PARAM.test(name)) url.searchParams.set(name, "***");
    return url.toString();
  } catch {
    return "（地址无法解析）";
  }
}
