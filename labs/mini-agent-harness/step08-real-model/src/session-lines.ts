/**
 * 按字节逐行读会话文件，每行有上限。
 *
 * 为什么不 readFileSync 之后整体解码再 split：
 *   - 整个文件会先变成一个字符串，超过 V8 的字符串上限（约 5 亿个字符）就只剩一句
 *     「Cannot create a string longer than …」；
 *   - 一行有多长事先不知道，一块一块地读，一行超过上限就停下，不必把它整个读进内存才发现；
 *   - 行的起点直接按字节记，截断半行时要的正是字节位置。
 * 打开之前先看它是不是普通文件：FIFO 会让读取一直等下去，/dev/zero 永远读不完。
 */

import fs from "node:fs";
import path from "node:path";

/** 每行的上限（字节）：远低于 V8 的字符串上限，一条真实的消息也远到不了。写入时守同一个上限。 */
export const MAX_LINE_BYTES = 64 * 1024 * 1024;

/**
 * 整个会话文件的上限（字节）。恢复出的历史每一轮都要整个放进发给模型的请求，
 * 请求写成 JSON 也是一个字符串：文件再大，打开得了，之后每一轮都会失败。所以打开时就拒绝，写入时也守着它。
 */
export const MAX_SESSION_BYTES = 256 * 1024 * 1024;

/** 一次读多少字节。 */
const CHUNK_BYTES = 64 * 1024;

export interface FileLine {
  /** 第几行（从 1 数）。 */
  number: number;
  /** 这一行第一个字节在文件里的位置。 */
  start: number;
  /** 这一行的内容（不含换行），按 UTF-8 解码；非法字节变成替换字符。 */
  text: string;
  /** 是否以换行结尾：最后一行没有换行，可能是上次写到一半。 */
  ended: boolean;
}

/** 不是普通文件时说它是什么。 */
function kindOf(stat: fs.Stats): string {
  if (stat.isDirectory()) return "文件夹";
  if (stat.isFIFO()) return "命名管道（FIFO）";
  if (stat.isCharacterDevice()) return "字符设备";
  if (stat.isBlockDevice()) return "块设备";
  if (stat.isSocket()) return "套接字";
  return "特殊文件";
}

/** 多少字节，说给人听。 */
export function sizeShown(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${bytes} 字节（${(bytes / 1024 / 1024).toFixed(1)} MiB）` : `${bytes} 字节`;
}

/**
 * 逐行产出文件的内容。文件超过 maxFileBytes 时一行都不读；某一行超过 maxLineBytes 时
 * 抛出一句说明（文件名、行号、上限），不再往下读。
 */
export function* readLines(file: string, maxLineBytes = MAX_LINE_BYTES, maxFileBytes = MAX_SESSION_BYTES): Generator<FileLine> {
  const name = path.basename(file);
  const stat = fs.statSync(file); // stat 跟着符号链接走，而且不会在 FIFO 上等待
  if (!stat.isFile()) throw new Error(`${name} 不是普通文件（是${kindOf(stat)}），没有读取它`);
  if (stat.size > maxFileBytes) {
    throw new Error(
      `会话文件 ${name} 有 ${sizeShown(stat.size)}，超过每个会话 ${sizeShown(maxFileBytes)}的上限：这么长的历史每一轮都要整个发给模型，` +
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
        if (length > maxLineBytes) {
          throw new Error(`会话文件 ${name} 第 ${number} 行超过每行 ${maxLineBytes} 字节的上限，没有读入它（也没有改动文件）`);
        }
        if (newline === -1) {
          pieces.push(Buffer.from(bytes.subarray(from))); // 复制：chunk 下一轮会被覆盖
          break;
        }
        const text = pieces.length === 0 ? bytes.toString("utf8", from, end) : Buffer.concat([...pieces, bytes.subarray(from, end)]).toString("utf8");
        yield { number, start, text, ended: true };
        number += 1;
        start = position + end + 1;
        pieces = [];
        length = 0;
        from = end + 1;
      }
    }
    if (length > 0) yield { number, start, text: Buffer.concat(pieces).toString("utf8"), ended: false };
  } finally {
    fs.closeSync(fd);
  }
}
