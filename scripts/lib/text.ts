// 只统一换行符：CRLF/CR → LF。行尾空格等差异故意保留，golden 要逐字节可信。
export function normalizeEol(text: string): string {
  return text.replace(/\r\n?/g, "\n");
}

/**
 * golden 比较用的换行统一：只把 CRLF 换成 LF（Windows 检出的文件），单独的 CR 原样保留。
 * 和每个步骤的 test/golden.test.ts 一样严：demo 若打印了单独的 CR，两边都判它不一致，结论永远相同。
 */
export function crlfToLf(text: string): string {
  return text.replace(/\r\n/g, "\n");
}

// 按行切分；末尾换行不产生多余的空行
export function splitLines(text: string): string[] {
  const lines = normalizeEol(text).split("\n");
  if (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  return lines;
}
