// 从 npm 包的压缩包（.tgz：gzip 压缩的 tar）里取出想要的文件。Node 没有自带 tar；npm 的包只用到
// ustar 的头、pax 与 GNU 的长路径，这里只认这些，别的条目（目录、链接……）跳过。
import zlib from "node:zlib";

export interface TarFile {
  /** 包内的相对路径（去掉第一层 package/），posix 分隔符 */
  path: string;
  data: Buffer;
}

/** 压缩包里的路径只能落在包里面：不收绝对路径、..、反斜杠与盘符 */
export function safeEntryPath(rel: string): boolean {
  if (rel === "" || rel.startsWith("/") || rel.includes("\\") || /^[a-z]:/i.test(rel)) return false;
  return rel.split("/").every((part) => part !== "" && part !== "." && part !== "..");
}

function cString(buf: Buffer): string {
  const end = buf.indexOf(0);
  return buf.subarray(0, end < 0 ? buf.length : end).toString("utf8");
}

/** pax 扩展头里的 path（格式：「长度 key=value\n」一条接一条） */
function paxPath(body: Buffer): string | undefined {
  let path: string | undefined;
  let at = 0;
  while (at < body.length) {
    const space = body.indexOf(0x20, at);
    if (space < 0) break;
    const len = Number(body.subarray(at, space).toString("ascii"));
    if (!Number.isInteger(len) || len <= 0) break;
    const record = body.subarray(space + 1, at + len - 1).toString("utf8");
    const eq = record.indexOf("=");
    if (record.slice(0, eq) === "path") path = record.slice(eq + 1);
    at += len;
  }
  return path;
}

/** 解出 want 认的普通文件 */
export function readTgz(tgz: Buffer, want: (rel: string) => boolean): TarFile[] {
  const tar = zlib.gunzipSync(tgz);
  const out: TarFile[] = [];
  let long: string | undefined;
  let off = 0;
  while (off + 512 <= tar.length) {
    const header = tar.subarray(off, off + 512);
    if (header.every((b) => b === 0)) break;
    const size = parseInt(cString(header.subarray(124, 136)).trim() || "0", 8);
    if (!Number.isInteger(size) || size < 0) throw new Error(`压缩包的第 ${off / 512} 块头坏了`);
    const type = String.fromCharCode(header[156] ?? 0);
    const body = tar.subarray(off + 512, off + 512 + size);
    off += 512 + Math.ceil(size / 512) * 512;
    if (type === "x") {
      long = paxPath(body) ?? long;
      continue;
    }
    if (type === "L") {
      long = cString(body);
      continue;
    }
    if (type === "g") continue;
    const prefix = cString(header.subarray(345, 500));
    const name = long ?? (prefix === "" ? cString(header.subarray(0, 100)) : `${prefix}/${cString(header.subarray(0, 100))}`);
    long = undefined;
    if (type !== "0" && type !== "\0") continue;
    const rel = name.replace(/^[^/]*\//, "");
    if (safeEntryPath(rel) && want(rel)) out.push({ path: rel, data: Buffer.from(body) });
  }
  return out;
}

/** keep 里的一条：「*.md」认任何一层的 .md 文件，别的是包内的确切路径 */
export function keepMatcher(keep: readonly string[]): (rel: string) => boolean {
  return (rel) => keep.some((k) => (k.startsWith("*") ? rel.endsWith(k.slice(1)) : rel === k));
}
