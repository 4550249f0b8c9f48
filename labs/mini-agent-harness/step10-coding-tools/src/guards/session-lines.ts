/**
 * 按字节逐行读会话文件，每行、整个文件都有上限。
 *
 * 为什么不 readFileSync 之后整体解码再 split：
 *   - 整个文件会先变成一个字符串，超过 V8 的字符串上限（约 5 亿个字符）就只剩一句
 *     「Cannot create a string longer than …」；
 *   - 一行有多长事先不知道，一块一块地读，一行超过上限就停下，不必把它整个读进内存才发现；
 *   - 行的起点直接按字节记，截断半行时要的正是字节位置；每一行解码时核对它是 UTF-8（utf8Line）。
 * 打开之前先看它是不是普通文件：FIFO 会让读取一直等下去，/dev/zero 永远读不完。
 */

import fs from "node:fs";
import path from "node:path";

/**
 * 每行与整个文件的上限（字节），作为一个值在读写之间传递：读和写守同一组，写得进去的文件下次才打得开。
 *   - 每行 64 MiB：远低于 V8 的字符串上限，一条真实的消息也远到不了；
 *   - 整个文件 256 MiB：恢复出的历史每一轮都要整个放进发给模型的请求，请求写成 JSON 也是一个字符串，
 *     文件再大，打开得了，之后每一轮都会失败。所以打开时就拒绝，写入时也守着它。
 */
export const SESSION_LIMITS = { lineBytes: 64 * 1024 * 1024, fileBytes: 256 * 1024 * 1024 };
export type SessionLimits = typeof SESSION_LIMITS;

/** 一次读多少字节。 */
const CHUNK_BYTES = 64 * 1024;

/** 文件里的一行：第几行（从 1 数）、第一个字节的位置、按 UTF-8 解码的内容（不含换行）、是否以换行结尾（没有的可能是写到一半）。 */
export interface FileLine {
  number: number;
  start: number;
  text: string;
  ended: boolean;
}

/** 多少字节，说给人听。 */
export function sizeShown(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${bytes} 字节（${(bytes / 1024 / 1024).toFixed(1)} MiB）` : `${bytes} 字节`;
}

/** 逐行产出文件的内容。文件超过上限时一行都不读；某一行超过上限时抛出一句说明（文件名、行号、上限），不再往下读。 */
export function* readLines(file: string, limits = SESSION_LIMITS): Generator<FileLine> {
  const name = path.basename(file);
  const stat = fs.statSync(file); // stat 跟着符号链接走，而且不会在 FIFO 上等待
  if (!stat.isFile()) throw new Error(`${name} 不是普通文件（是${kindOf(stat)}），没有读取它`);
  if (stat.size > limits.fileBytes) {
    throw new Error(
      `会话文件 ${name} 有 ${sizeShown(stat.size)}，超过每个会话 ${sizeShown(limits.fileBytes)}的上限：这么长的历史每一轮都要整个发给模型，` +
        `请求大得装不进一个字符串，每一轮都会失败。没有读入它（也没有改动文件）；请开一个新会话`,
    );
  }
  const fd = fs.openSync(file, "r");
  try {
    const chunk = Buffer.alloc(CHUNK_BYTES);
    let pieces: Buffer[] = []; // 当前这一行跨过读取块时，前面几块里的部分
    let length = 0; // 当前这一行已经读到的字节数
    let start = 0;
    let number = 1;
    let position = 0;
    for (let read; (read = fs.readSync(fd, chunk, 0, CHUNK_BYTES, position)) > 0; position += read) {
      const bytes = chunk.subarray(0, read);
      let from = 0;
      while (from < read) {
        const newline = bytes.indexOf(0x0a, from);
        const end = newline === -1 ? read : newline;
        length += end - from;
        if (length > limits.lineBytes) {
          throw new Error(`会话文件 ${name} 第 ${number} 行超过每行 ${limits.lineBytes} 字节的上限，没有读入它（也没有改动文件）`);
        }
        if (newline === -1) {
          pieces.push(Buffer.from(bytes.subarray(from))); // 复制：chunk 下一轮会被覆盖
          break;
        }
        const text = utf8Line(name, number, pieces.length === 0 ? bytes.subarray(from, end) : Buffer.concat([...pieces, bytes.subarray(from, end)]), true);
        yield { number, start, text, ended: true };
        number += 1;
        start = position + end + 1;
        pieces = [];
        length = 0;
        from = end + 1;
      }
    }
    if (length > 0) yield { number, start, text: utf8Line(name, number, Buffer.concat(pieces), false), ended: false };
  } finally {
    fs.closeSync(fd);
  }
}

/** 不是普通文件时说它是什么。 */
function kindOf(stat: fs.Stats): string {
  if (stat.isDirectory()) return "文件夹";
  if (stat.isFIFO()) return "命名管道（FIFO）";
  if (stat.isCharacterDevice()) return "字符设备";
  return stat.isBlockDevice() ? "块设备" : stat.isSocket() ? "套接字" : "特殊文件";
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * 一行的字节解码成字符串。不是合法的 UTF-8（中文 Windows 上的编辑器常把文件另存成 GBK/ANSI）就拒绝整个文件：
 * 否则非法字节会悄悄变成替换字符 U+FFFD，模型收到一段乱码的历史，新的 UTF-8 行又接在 GBK 的文件后面。
 * 没有换行的最后一行例外：程序写到一半退出时可能正好断在一个汉字的字节中间，末尾那个不完整的字符不算，
 * 这一行照旧交给 session-tail.ts 判断（解码时它变成 U+FFFD，JSON 解析不了）。
 */
function utf8Line(name: string, number: number, bytes: Buffer, ended: boolean): string {
  let text: string;
  try {
    text = strictUtf8.decode(ended ? bytes : bytes.subarray(0, bytes.length - incompleteTail(bytes)));
  } catch {
    throw new Error(
      `会话文件 ${name} 不是 UTF-8 编码（第 ${number} 行有不合 UTF-8 的字节，多半是编辑器把它存成了 GBK/ANSI）：` +
        `没有读入它，也没有改动它；请在编辑器里把它另存为 UTF-8 再打开`,
    );
  }
  return ended ? text : bytes.toString("utf8");
}

/** 末尾一个没写完的 UTF-8 字符占了几个字节（0 表示最后一个字符是完整的）。 */
function incompleteTail(bytes: Buffer): number {
  for (let back = 1; back <= Math.min(3, bytes.length); back++) {
    const byte = bytes[bytes.length - back] ?? 0;
    if ((byte & 0xc0) === 0x80) continue; // 续字节：往前找这个字符的首字节
    const size = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return size > back ? back : 0;
  }
  return 0;
}
