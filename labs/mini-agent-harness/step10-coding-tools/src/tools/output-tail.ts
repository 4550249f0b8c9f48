/**
 * bash 的输出只留尾巴：最后 2000 行或 50KB，先到哪个算哪个。
 * 常量与方向照 Pi 1.6.0（pi-coding-agent 的 src/core/tools/truncate.ts：DEFAULT_MAX_LINES、DEFAULT_MAX_BYTES、truncateTail）：
 * 命令的结尾（报错、最终结果）最有用。一条 `yes` 能在几秒里吐出几百 MB，全交给模型会撑爆上下文，
 * 全攒在内存里会撑爆进程，所以边收边扔：内存里只留最近的 2 × 50KB。
 * 与 Pi 不同：不把完整输出存进临时文件，提示里也就没有路径（demo 的输出不能带路径）。
 */

export const MAX_LINES = 2000;
export const MAX_BYTES = 50 * 1024;
/** 内存里留多少字节：比 MAX_BYTES 多，切在半个字符、半行上的开头还能扔掉。 */
const KEEP_BYTES = 2 * MAX_BYTES;

export class OutputTail {
  private chunks: Buffer[] = [];
  private kept = 0;
  private dropped = false;
  /** 到目前为止一共几个 \n：算出「第几行到第几行」。 */
  private newlines = 0;
  private endsWithNewline = false;

  /** stdout 与 stderr 的每一块都交到这里，按到达的先后。 */
  readonly push = (chunk: Buffer): void => {
    if (chunk.length === 0) return;
    for (const byte of chunk) if (byte === 0x0a) this.newlines++;
    this.endsWithNewline = chunk[chunk.length - 1] === 0x0a;
    this.chunks.push(chunk);
    this.kept += chunk.length;
    while (this.kept - this.chunks[0]!.length >= KEEP_BYTES) {
      this.kept -= this.chunks.shift()!.length;
      this.dropped = true;
    }
  };

  /** 交给模型的文字：尾巴，被截过就在后面加一行说明（第几行到第几行、共几行）。 */
  text(): string {
    const lines = Buffer.concat(this.chunks).toString("utf8").split("\n");
    if (this.endsWithNewline) lines.pop();
    if (this.dropped && lines.length > 1) lines.shift(); // 内存里最早那一行只剩后半截
    const total = this.newlines + (this.endsWithNewline ? 0 : 1);
    const picked: string[] = [];
    let bytes = 0;
    let limit: "lines" | "bytes" | undefined;
    for (let i = lines.length - 1; i >= 0; i--) {
      if (picked.length === MAX_LINES) {
        limit = "lines";
        break;
      }
      const size = Buffer.byteLength(lines[i]!) + (picked.length > 0 ? 1 : 0);
      if (bytes + size > MAX_BYTES) {
        limit = "bytes";
        break;
      }
      picked.unshift(lines[i]!);
      bytes += size;
    }
    if (limit === undefined && !this.dropped) return picked.join("\n");
    if (picked.length === 0) return lastLineTail(lines.at(-1) ?? "", total);
    const first = total - picked.length + 1;
    const what = limit === "lines" ? `${MAX_LINES} 行` : `${kb(MAX_BYTES)}`;
    return `${picked.join("\n")}\n\n[输出太长，只留最后 ${what}：第 ${first}–${total} 行，共 ${total} 行]`;
  }
}

/** 最后一行本身就超过 MAX_BYTES：只留它的最后 MAX_BYTES 字节，从一个完整的字符开始。 */
function lastLineTail(line: string, total: number): string {
  const bytes = Buffer.from(line);
  let start = bytes.length - MAX_BYTES;
  while (start < bytes.length && (bytes[start]! & 0xc0) === 0x80) start++; // 不从一个字符的中间开始
  return `${bytes.subarray(start).toString("utf8")}\n\n[输出太长，只留第 ${total} 行的最后 ${kb(MAX_BYTES)}]`;
}

function kb(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)}KB`;
}
