// 只有输出到终端且没设置 NO_COLOR 时才上色；写进文件或管道时保持纯文本
export function shouldColor(stream: { isTTY?: boolean } = process.stdout, env: NodeJS.ProcessEnv = process.env): boolean {
  return stream.isTTY === true && (env.NO_COLOR === undefined || env.NO_COLOR === "");
}

export interface Paint {
  red(s: string): string;
  green(s: string): string;
  cyan(s: string): string;
  bold(s: string): string;
  dim(s: string): string;
}

const wrap = (open: number, close: number) => (s: string) => `\u001b[${open}m${s}\u001b[${close}m`;

export function paint(enabled: boolean): Paint {
  if (!enabled) {
    const id = (s: string) => s;
    return { red: id, green: id, cyan: id, bold: id, dim: id };
  }
  return { red: wrap(31, 39), green: wrap(32, 39), cyan: wrap(36, 39), bold: wrap(1, 22), dim: wrap(2, 22) };
}
