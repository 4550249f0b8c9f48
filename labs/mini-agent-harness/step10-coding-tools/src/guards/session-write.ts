/**
 * 往会话文件里写一行时的防线。扩展和我们在同一个进程里：它改了 Object.prototype.toJSON，JSON.stringify 就会把每条消息
 * 写成 {}，所以每一行写之前核对它解析回来就是那条消息，宁可不写也不写垃圾。一行、整个文件都守读取时的上限，
 * 否则写得进去、下次却打不开。写到一半失败就当场截掉半行，之后不再写。
 */

import fs from "node:fs";
import path from "node:path";

import type { Message } from "../types.js";
import { MAX_ENTRY_DEPTH, tooDeep } from "./json.js";
import { sizeShown } from "./session-lines.js";
import { describeError, errorCode, shownOnOneLine, tryOr } from "./shown.js";

/** 把一个值写成一行 JSON 的函数：session.ts 交进来的 JSON.stringify。 */
export type ToJson = (value: object) => string;

const REASONS: Record<string, string> = {
  ENOSPC: "磁盘已满", EDQUOT: "超出了磁盘配额", EROFS: "只读的文件系统", EACCES: "没有写入权限", EPERM: "操作系统不允许写入",
  EEXIST: "路径上有一个同名的文件，不是文件夹", ENOTDIR: "路径上有一个同名的文件，不是文件夹", EIO: "磁盘读写出错",
};

/** 一个写入错误的原因：认识的错误码说成人话，别的转述成一行（扩展换掉了 fs 的函数时，抛出的可能是任何值）。 */
export function ioReason(error: unknown): string {
  const code = errorCode(error);
  if (code && Object.hasOwn(REASONS, code)) return `${REASONS[code]}（${code}）`;
  return shownOnOneLine(describeError(error));
}

/** 启动时就确认 dir（以及已有的 file）写得进去，不等第一次写入时才崩溃。目录不存在就建出来。 */
export function checkWritable(dir: string, file?: string): void {
  try {
    fs.mkdirSync(dir, { recursive: true });
    // root 不受权限位限制，但只读的文件系统照样拒绝它
    fs.accessSync(dir, fs.constants.W_OK);
    if (file) fs.accessSync(file, fs.constants.W_OK);
  } catch (error) {
    throw new Error(`会话无法保存在 ${path.basename(dir)}/：${ioReason(error)}`);
  }
}

/** 一行太长：超过每行的上限，或者长得连 JavaScript 的字符串都装不下（bytes 未知）。 */
export class LineTooLong extends Error {
  constructor(message: string, readonly bytes?: number) {
    super(message);
  }
}

/** 把条目写成一行；超过每行上限就把过长的文字截短（文中注明）再写，用 tell 说一句。截到很短仍放不下就抛出 LineTooLong。 */
export function lineWithinLimit(entry: { message: Message }, toJson: ToJson, lineBytes: number, tell: (line: string) => void): string {
  // 读的时候太深的一行会被拒收（session-entries.ts）：写之前守同一个上限，不写一行下次打不开的
  const deep = tooDeep(entry, MAX_ENTRY_DEPTH);
  if (deep) throw new Error(`这条消息${deep}，写进去下次就打不开，拒绝写入`);
  try {
    return entryLine(entry, toJson, lineBytes);
  } catch (error) {
    if (!(error instanceof LineTooLong)) throw error;
    // 单段文字的字符数不会少于它写出的字节数的 1/6（\u0000 这样的转义），先截到上限以内，免得再撞 V8 的字符串上限
    let keep = lineBytes;
    let bytes = error.bytes;
    for (let attempt = 0; attempt < 30 && keep > 0; attempt++) {
      if (bytes !== undefined) keep = Math.min(keep, Math.floor((keep * lineBytes) / bytes / 1.2));
      try {
        const line = entryLine({ ...entry, message: cutLongText(entry.message, keep) }, toJson, lineBytes);
        tell(`[会话] ${whichMessage(entry.message)}写成一行超过每行 ${lineBytes} 字节的上限：会话文件里存的是截短的版本（每段文字最多 ${keep} 个字符，截断处有注明），屏幕上和这次对话里它是完整的`);
        return line;
      } catch (again) {
        if (!(again instanceof LineTooLong)) throw again;
        bytes = again.bytes;
        if (bytes === undefined) keep = Math.floor(keep / 8);
      }
    }
    throw error;
  }
}

/** 用 toJson 把一个条目写成一行（带换行）。解析回来与原值不同、或超过每行的上限（LineTooLong）时抛出一句说明。 */
export function entryLine(entry: object, toJson: ToJson, lineBytes: number): string {
  let line: string | undefined;
  try {
    line = toJson(entry);
  } catch (error) {
    // V8 的字符串最长约 5 亿个字符：这是消息太大，不是谁改了 JSON
    if (error instanceof RangeError) throw new LineTooLong("这条消息太大，写成一行超过了 JavaScript 字符串的上限（约 5 亿个字符）");
    // 被改过的 toJSON 也可能直接抛错：同样按「对不上」处理
  }
  // 先量长度：超长的一行不必再解析回来核对，省下一份同样大的内存
  const bytes = typeof line === "string" ? Buffer.byteLength(line) : 0;
  if (bytes > lineBytes) throw new LineTooLong(`这条消息写成一行有 ${bytes} 字节，超过每行 ${lineBytes} 字节的上限（写进去下次就打不开）`, bytes);
  if (typeof line !== "string" || !sameAsJson(JSON.parse(line), entry)) {
    throw new Error("写出的一行与消息对不上（可能有扩展改动了 JSON 的行为，例如设置了 Object.prototype.toJSON），为了不写入错误的数据，拒绝写入");
  }
  return line + "\n";
}

/**
 * parsed 是不是 original 按 JSON 的规矩写出再读回的样子（undefined 与函数的字段丢掉，NaN、Infinity 写成 null）。
 * 不调用任何 toJSON，也不用数组原型上的方法（every、filter……）：扩展可能连它们也改了。
 */
function sameAsJson(parsed: unknown, original: unknown): boolean {
  if (typeof original === "number" && !Number.isFinite(original)) return parsed === null;
  if (typeof original !== "object" || original === null) return parsed === original;
  if (Array.isArray(original)) {
    if (!Array.isArray(parsed) || parsed.length !== original.length) return false;
    for (let i = 0; i < original.length; i++) {
      if (!sameAsJson(parsed[i], original[i] ?? null)) return false; // 数组里的 undefined 写成 null
    }
    return true;
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return false;
  const fields = original as Record<string, unknown>;
  const copy = parsed as Record<string, unknown>;
  let kept = 0;
  for (const key of Object.keys(fields)) {
    const value = fields[key];
    if (value === undefined || typeof value === "function") continue;
    kept += 1;
    if (!Object.hasOwn(copy, key) || !sameAsJson(copy[key], value)) return false;
  }
  return Object.keys(copy).length === kept;
}

/** value 的一份副本：其中长于 keep 个字符的字符串截成 keep 个字符，并注明原来多长。原值不动。 */
function cutLongText<T>(value: T, keep: number): T {
  if (typeof value === "string") {
    if (value.length <= keep) return value;
    // 不把一个代理对（emoji 之类）切成两半
    const end = keep > 0 && /[\uD800-\uDBFF]/.test(value[keep - 1] ?? "") ? keep - 1 : keep;
    return `${value.slice(0, end)}…［会话文件只保存了前 ${end} 个字符，原文 ${value.length} 个字符］` as T;
  }
  if (Array.isArray(value)) return value.map((item: unknown) => cutLongText(item, keep)) as T;
  if (typeof value !== "object" || value === null) return value;
  // fromEntries 建的是自己的属性：copy["__proto__"] = … 却会换掉副本的原型，JSON.parse 给出的 "__proto__" 键就悄悄丢了
  return Object.fromEntries(Object.keys(value).map((key) => [key, cutLongText((value as Record<string, unknown>)[key], keep)])) as T;
}

/** 追加一整行，要么全写进去，要么一个字节都不留：新文件的第一行若是半行，下次会被当成「不像会话文件」拒绝。 */
export function appendWholeLine(file: string, line: string, fileBytes: number, append: () => void): void {
  const sizeBefore = fs.statSync(file, { throwIfNoEntry: false })?.size ?? 0;
  // 整个文件也守读取时的上限：写得进去、下次却打不开的文件不写
  if (sizeBefore + Buffer.byteLength(line) > fileBytes) throw new Error(`会话文件已经到了每个会话 ${sizeShown(fileBytes)}的上限，再写下次就打不开`);
  try {
    append();
  } catch (error) {
    tryOr(undefined, () => fs.truncateSync(file, sizeBefore)); // 截不掉（文件系统已经只读）：下次打开时照常截掉
    throw error;
  }
}

export function savingStoppedNotice(file: string, message: Message, error: unknown): string {
  return `[会话未保存] ${shownOnOneLine(path.basename(file))}：${ioReason(error)}。从${whichMessage(message)}起，这次对话的消息只显示在屏幕上、没有保存；已经保存的部分下次照常能打开`;
}

/** 指出说的是哪一条消息。你说的话、模型起的工具名是外来的文字，在提示里只占一行。 */
function whichMessage(message: Message): string {
  if (message.role === "user") return `你说的「${shownOnOneLine(message.content, 20)}」`;
  return message.role === "toolResult" ? `工具 ${shownOnOneLine(message.toolName, 64)} 的结果` : "助手的回复";
}
