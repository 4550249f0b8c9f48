/**
 * 用步骤自己的加载函数读会话文件，但绝不改动它。
 *
 * 步骤的 Session.open 为了之后能接着追加，会截掉写到一半的最后一行、补上缺的换行——
 * 查看器不能这样动用户的文件。所以先把文件复制进临时目录（文件名不变），
 * 再让步骤的 Session.open 打开这份副本：警告与报错和 `npm start -- --session` 一字不差，
 * 原文件的字节与修改时间都不变。加载通过之后，再逐行读副本，拿到全部条目（包括链外的）。
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";

/** 步骤 src/session.ts 里我们用到的那一点接口（steps 06–09 相同）。 */
interface StepSessionModule {
  Session: { open(file: string, warnings?: string[]): { messages(): unknown[] } };
}

/** 文件里的一行，原样解析出来；形状不可信，交给 model.ts 去认。 */
export interface RawLine {
  /** 在文件里是第几行（从 1 数）。 */
  line: number;
  entry: Record<string, unknown>;
}

export interface LoadedSession {
  /** 文件名（不含目录），和步骤的报错里用的一样。 */
  name: string;
  /** 步骤的加载函数给出的警告，原文。 */
  warnings: string[];
  /** 步骤的加载函数沿 parentId 还原出的消息条数。 */
  chainMessages: number;
  /** 加载函数接受的每一行（写到一半的尾巴已被它去掉）。 */
  lines: RawLine[];
}

/** 会话文件坏了：message 就是步骤加载函数的原话。 */
export class SessionLoadError extends Error {}

export async function loadSession(file: string, stepDir: string): Promise<LoadedSession> {
  const name = path.basename(file);
  if (!fs.existsSync(file) || !fs.statSync(file).isFile()) throw new SessionLoadError(`找不到会话文件：${file}`);
  const loader = (await import(pathToFileURL(path.join(stepDir, "src", "session.ts")).href)) as StepSessionModule;

  const tempDir = fs.mkdtempSync(path.join(os.tmpdir(), "session-viewer-"));
  try {
    const copy = path.join(tempDir, name);
    fs.copyFileSync(file, copy);
    const warnings: string[] = [];
    let chainMessages: number;
    try {
      chainMessages = loader.Session.open(copy, warnings).messages().length;
    } catch (error) {
      throw new SessionLoadError(error instanceof Error ? error.message : String(error));
    }
    return { name, warnings, chainMessages, lines: readLines(fs.readFileSync(copy, "utf8")) };
  } finally {
    fs.rmSync(tempDir, { recursive: true, force: true });
  }
}

/** 加载函数已经把关过；这里只是宽容地逐行解析（去掉 BOM，跳过空行与解析不了的行）。 */
function readLines(text: string): RawLine[] {
  const lines: RawLine[] = [];
  for (const [index, line] of text.replace(/^\uFEFF/, "").split("\n").entries()) {
    if (line.trim() === "") continue;
    try {
      const entry: unknown = JSON.parse(line);
      if (entry !== null && typeof entry === "object" && !Array.isArray(entry)) {
        lines.push({ line: index + 1, entry: entry as Record<string, unknown> });
      }
    } catch {
      // 加载函数接受了却解析不了：只可能是它容忍的行，查看器同样跳过
    }
  }
  return lines;
}
