/**
 * 用步骤自己的只读加载函数读会话文件（steps 06–09 的 src/session.ts 都导出 loadSession）：
 * 它不加锁、不截断半行、不补换行，警告与报错和 `npm start -- --session` 一字不差。
 * 加载通过之后，再逐行读一遍原文件，拿到每个条目所在的行号（页面上要显示）。
 */
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

/** 步骤 src/session.ts 里我们用到的那一点接口（steps 06–09 相同）。 */
interface StepSessionModule {
  loadSession(file: string, warnings?: string[]): { messages: unknown[] };
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
  /** 文件里能解析的每一行（写到一半的尾巴解析不了，自然不在其中）。 */
  lines: RawLine[];
}

/** 会话文件坏了：message 就是步骤加载函数的原话。 */
export class SessionLoadError extends Error {}

export async function loadSession(file: string, stepDir: string): Promise<LoadedSession> {
  const name = path.basename(file);
  if (!fs.existsSync(file) || !fs.statSync(file).isFile()) throw new SessionLoadError(`找不到会话文件：${file}`);
  const step = (await import(pathToFileURL(path.join(stepDir, "src", "session.ts")).href)) as StepSessionModule;
  const warnings: string[] = [];
  let chainMessages: number;
  try {
    chainMessages = step.loadSession(file, warnings).messages.length;
  } catch (error) {
    throw new SessionLoadError(error instanceof Error ? error.message : String(error));
  }
  return { name, warnings, chainMessages, lines: readLines(fs.readFileSync(file, "utf8")) };
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
