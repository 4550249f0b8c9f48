/**
 * 解析不了的最后一行（没有换行结尾）有两种来历：本程序写到一半时进程死了——写出的是一个条目的前半截，必须截掉，
 * 否则下一次追加会接在它后面，把它变成永久坏掉的中间行；或者学习者在编辑器里改了最后一行（打错字、输入法换成了“”）
 * ——那是学习者的文字，原样拒绝、说出行号。光看字节分不出「写到一半」和「删掉了行尾几个字符」，
 * 所以截掉之前先把半行原样另存成 .bak：哪一种都不丢字节。
 */

import fs from "node:fs";
import path from "node:path";

import { notASession } from "./session-entries.js";
import { describeError, errorCode, shownOnOneLine } from "./shown.js";

/** 本程序写的每一行都以它开头。 */
const ENTRY_HEAD = '{"type":"message","id":"';

type UnparsedLine = { lineNumber: number; start: number; line: string; ended: boolean };

/** JSON.parse 失败的一行是本程序写到一半的最后一行：返回从哪个字节起截掉。不是：抛出一句说明，文件不动。 */
export function tornTailStart(name: string, unparsed: UnparsedLine, entryCount: number, error: unknown): number {
  const { lineNumber, start, line, ended } = unparsed;
  // 第一条就不是会话条目：这多半不是会话文件，原样拒绝，绝不截断
  if (entryCount === 0) throw notASession(name, lineNumber);
  // JSON.parse 的说明引用那一行的原文（可能带 ESC、换行）；被换掉的 JSON.parse 还可能抛出任何值
  const reason = shownOnOneLine(describeError(error));
  if (ended) throw new Error(`会话文件 ${name} 第 ${lineNumber} 行不是合法的 JSON：${reason}`);
  if (!looksLikeTornWrite(line)) {
    const why = "不是合法的 JSON，而且不像本程序写到一半留下的（像是手动改过）";
    throw new Error(`会话文件 ${name} 第 ${lineNumber} 行（最后一行）${why}：${reason}。没有改动它；请改好这一行（或删掉它）再打开`);
  }
  return start;
}

/** 修补文件末尾：半行先另存成 <文件>.bak（已有就用 .2.bak……）再截掉；只是少了换行就补上。另存失败就什么都不截。 */
export function repairTail(file: string, repair: { truncateAt: number } | { appendNewline: true } | undefined, warnings: string[]): void {
  if (!repair) return;
  if ("appendNewline" in repair) return fs.appendFileSync(file, "\n");
  const torn = tailFrom(file, repair.truncateAt);
  const backup = keepAside(file, torn);
  fs.truncateSync(file, repair.truncateAt);
  const note = `；这半行（${torn.length} 字节）原样存进了 ${path.basename(backup)}`;
  if (warnings.length > 0) warnings[warnings.length - 1] += note;
  else warnings.push(`会话文件 ${path.basename(file)} 的最后一行不完整，已截掉${note}`);
}

/** 文件从 start 起到末尾的字节（半行不超过每行的上限，不必把整个文件读进来）。 */
function tailFrom(file: string, start: number): Buffer {
  const fd = fs.openSync(file, "r");
  try {
    const bytes = Buffer.alloc(Math.max(0, fs.fstatSync(fd).size - start));
    let done = 0;
    for (let read; done < bytes.length && (read = fs.readSync(fd, bytes, done, bytes.length - done, start + done)) > 0; ) done += read;
    return bytes.subarray(0, done);
  } finally {
    fs.closeSync(fd);
  }
}

/** 把 bytes 写进一个还不存在的 .bak 文件，返回它的路径。 */
function keepAside(file: string, bytes: Buffer): string {
  for (let n = 1; n <= 100; n++) {
    const backup = n === 1 ? `${file}.bak` : `${file}.${n}.bak`;
    try {
      fs.writeFileSync(backup, bytes, { flag: "wx" });
      return backup;
    } catch (error) {
      if (errorCode(error) === "EEXIST") continue;
      throw new Error(`会话文件 ${path.basename(file)} 的最后一行不完整，但无法把它另存成 ${path.basename(backup)}（${shownOnOneLine(describeError(error))}），没有改动文件`);
    }
  }
  throw new Error(`会话文件 ${path.basename(file)} 的最后一行不完整，但旁边已经有 100 个 .bak 文件，没有改动文件；请先清理它们`);
}

const TOKEN = /[{}[\]:,]|"(?:[^"\\\u0000-\u001f]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*"|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null/y;
const PARTIAL_STRING = /^"(?:[^"\\\u0000-\u001f]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*(?:\\u?[0-9a-fA-F]{0,3})?$/;
const PARTIAL_SCALAR = /^(?:-?\d*\.?\d*(?:[eE][+-]?\d*)?|t(?:ru?)?|f(?:a(?:ls?)?)?|n(?:ul?)?)$/;

type Expect = "value" | "valueOrClose" | "key" | "keyOrClose" | "colon" | "commaOrClose" | "done";

/** line 是不是本程序写出的一行的前半截：以 ENTRY_HEAD 开头，之后是不带空白、没写完的 JSON（最后一个记号可以只写了一半）。 */
export function looksLikeTornWrite(line: string): boolean {
  if (!(line.startsWith(ENTRY_HEAD) || ENTRY_HEAD.startsWith(line))) return false;
  const open: string[] = [];
  let expect: Expect = "value";
  const afterValue = (): Expect => (open.length === 0 ? "done" : "commaOrClose");
  // 行尾的数字可能还没写完（-1. 之后还有数字）：记下最后一个数字从哪里开始、开始之前在等什么
  let scalar: { start: number; end: number; expect: Expect } = { start: -1, end: -1, expect };
  for (TOKEN.lastIndex = 0; TOKEN.lastIndex < line.length; ) {
    let at = TOKEN.lastIndex;
    const token = TOKEN.exec(line)?.[0];
    if (token === undefined) {
      if (scalar.end === at) ({ start: at, expect } = scalar);
      const rest = line.slice(at);
      const wantsValue = expect === "value" || expect === "valueOrClose";
      if (PARTIAL_STRING.test(rest)) return wantsValue || expect === "key" || expect === "keyOrClose";
      return wantsValue && PARTIAL_SCALAR.test(rest);
    }
    const wantsValue = expect === "value" || expect === "valueOrClose";
    const isValue = !"{}[]:,".includes(token); // 字符串、数字、true、false、null
    const closes = (token === "}" && open.at(-1) === "{") || (token === "]" && open.at(-1) === "[");
    if (wantsValue && (token === "{" || token === "[")) {
      open.push(token);
      expect = token === "{" ? "keyOrClose" : "valueOrClose";
    } else if (wantsValue && isValue) {
      if (!token.startsWith('"')) scalar = { start: at, end: TOKEN.lastIndex, expect };
      expect = afterValue();
    } else if ((expect === "key" || expect === "keyOrClose") && token.startsWith('"')) expect = "colon";
    else if (expect === "colon" && token === ":") expect = "value";
    else if (expect === "commaOrClose" && token === ",") expect = open.at(-1) === "{" ? "key" : "value";
    else if (closes && (expect === "commaOrClose" || expect === (token === "}" ? "keyOrClose" : "valueOrClose"))) {
      open.pop();
      expect = afterValue();
    } else return false;
  }
  return expect !== "done";
}
