// npm run book 的端口：--port N，或环境变量 PORT，默认 4173。说错时指出是哪一个、学习者给的值是什么。
export const DEFAULT_PORT = 4173;

export function parsePort(args: readonly string[], env: NodeJS.ProcessEnv): { port: number } | { error: string } {
  const at = args.indexOf("--port");
  let raw: string;
  let from: string;
  if (at >= 0) {
    const value = args[at + 1];
    if (value === undefined || value.startsWith("--")) return { error: "--port 后面要跟端口号，例如 npm run book -- --port 4180" };
    raw = value;
    from = "--port";
  } else if (env.PORT !== undefined && env.PORT !== "") {
    raw = env.PORT;
    from = "环境变量 PORT";
  } else {
    return { port: DEFAULT_PORT };
  }
  // 只认十进制数字：Number() 会把 ""、" 80 "、"0x50"、"1e3" 也当成数
  const port = /^\d{1,5}$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isInteger(port) || port > 65535) return { error: `端口不对：${from} 的值是「${raw}」，要 0–65535 的整数` };
  return { port };
}
