/**
 * 按字节逐行读会话文件，每行、整个文件都有上限。不整体读进来再 split：超过 V8 的字符串上限（约 5 亿个字符）只剩一句
 * 「Cannot create a string longer than …」；一行超过上限就停下，不必整个读进内存才发现；截断半行要的正是字节位置。
 * 打开之前先看它是不是普通文件：FIFO 会让读取一直等下去，/dev/zero 永远读不完。
 */

import fs from "node:fs";
import path from "node:path";

/**
 * 每行、整个文件的字节上限：读和写守同一组，写得进去的文件下次才打得开。每行 64 MiB 远低于 V8 的字符串上限；
 * 整个文件 256 MiB：恢复出的历史每一轮都要整个写进发给模型的请求（也是一个字符串），再大就每一轮都失败。
 */
export const SESSION_LIMITS = { lineBytes: 64 * 1024 * 1024, fileBytes: 256 * 1024 * 1024 };
export type SessionLimits = typeof SESSION_LIMITS;

const CHUNK_BYTES = 64 * 1024;

export function sizeShown(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${bytes} 字节（${(bytes / 1024 / 1024).toFixed(1)} MiB）` : `${bytes} 字节`;
}

/**
 * 逐行产出：第几行（从 1 数）、第一个字节的位置、解码后的文字、是否以换行结尾（没有的可能是写到一半）。
 * 文件超过上限时一行都不读；某一行超过上限时抛出一句说明，不再往下读。
 */
export function* readLines(file: string, limits = SESSION_LIMITS): Generator<{ number: number; start: number; text: string; ended: boolean }> {
  const name = path.basename(file);
  const stat = fs.statSync(file); // stat 跟着符号链接走，而且不会在 FIFO 上等待
  if (!stat.isFile()) throw new Error(`${name} 不是普通文件（是${kindOf(stat)}），没有读取它`);
  if (stat.size > limits.fileBytes) {
    const why = "这么长的历史每一轮都要整个发给模型，请求大得装不进一个字符串，每一轮都会失败";
    throw new Error(`会话文件 ${name} 有 ${sizeShown(stat.size)}，超过每个会话 ${sizeShown(limits.fileBytes)}的上限：${why}。没有读入它（也没有改动文件）；请开一个新会话`);
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
        if (length > limits.lineBytes) throw new Error(`会话文件 ${name} 第 ${number} 行超过每行 ${limits.lineBytes} 字节的上限，没有读入它（也没有改动文件）`);
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

function kindOf(stat: fs.Stats): string {
  if (stat.isDirectory()) return "文件夹";
  if (stat.isFIFO()) return "命名管道（FIFO）";
  if (stat.isCharacterDevice()) return "字符设备";
  return stat.isBlockDevice() ? "块设备" : stat.isSocket() ? "套接字" : "特殊文件";
}

/**
 * 一行的字节解码成字符串。不是合法的 UTF-8（中文 Windows 上的编辑器常把文件另存成 GBK/ANSI）就拒绝整个文件：
 * 否则非法字节会悄悄变成 U+FFFD，模型收到一段乱码的历史。没有换行的最后一行可能断在一个汉字的字节中间
 * （写到一半退出）：stream 模式不把末尾不完整的字符算作错误，这一行照旧交给 session-tail.ts 判断。
 */
function utf8Line(name: string, number: number, bytes: Buffer, ended: boolean): string {
  try {
    const text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes, { stream: !ended });
    return ended ? text : bytes.toString("utf8");
  } catch {
    const why = `第 ${number} 行有不合 UTF-8 的字节，多半是编辑器把它存成了 GBK/ANSI`;
    throw new Error(`会话文件 ${name} 不是 UTF-8 编码（${why}）：没有读入它，也没有改动它；请在编辑器里把它另存为 UTF-8 再打开`);
  }
}
