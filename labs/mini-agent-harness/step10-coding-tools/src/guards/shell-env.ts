/**
 * bash 工具给命令的环境变量：harness 自己的，去掉模型服务的密钥。
 * 命令是模型写的：`echo $HARNESS_API_KEY`、`env | curl …` 就能把密钥送出去（Pi 不删，它的 docs/security.md 把这交给沙箱）。
 * Windows 的环境变量名不分大小写（harness_api_key 与 HARNESS_API_KEY 是同一个），所以那里按小写比较。
 */

export const SECRET_NAMES = ["HARNESS_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_API_KEY"];

export function shellEnv(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): NodeJS.ProcessEnv {
  const secret = (name: string): boolean => (platform === "win32" ? SECRET_NAMES.some((s) => s.toLowerCase() === name.toLowerCase()) : SECRET_NAMES.includes(name));
  const out: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) if (!secret(name)) out[name] = value;
  return out;
}
