/**
 * edit 读进来的文件必须是 UTF-8 文本。GBK 编码的中文文件（Windows 上很常见）、图片之类按 UTF-8 读，
 * 读不懂的字节会变成 U+FFFD；改一处再写回去，文件里其余的字节就都坏了。所以先严格地解一遍，解不了就不改。
 */

/** 解成字符串；不是合法的 UTF-8 时返回一句说明。开头的 BOM 留在字符串里（ignoreBOM）：edit 自己剥下、写回时放回去。 */
export function decodeUtf8(bytes: Uint8Array, shown: string): { ok: true; text: string } | { ok: false; error: string } {
  try {
    return { ok: true, text: new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes) };
  } catch {
    return { ok: false, error: `${shown} 不是 UTF-8 文本（可能是 GBK 编码或二进制文件），edit 不改它：改一处会损坏其余的字节` };
  }
}
