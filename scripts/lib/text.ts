// 只统一换行符：CRLF/CR → LF。行尾空格等差异故意保留，golden 要逐字节可信。
export function normalizeEol(text: string): string {
  return text.replace(/\r\n?/g, "\n");
}

// 按行切分；末尾换行不产生多余的空行
export function splitLines(text: string): string[] {
  const lines = normalizeEol(text).split("\n");
  if (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  return lines;
}
