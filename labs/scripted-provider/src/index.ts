/**
 * 本地脚本服务器（给 step08、step09 用的测试工具）。
 *   provider-server.ts    真正的 HTTP 服务器：两种协议、按脚本回复、故障注入、记下收到的请求
 *   scripted-provider.ts  把请求体还原成上下文，交给步骤的剧本（decideReply）现算回复
 *   provider-cli.ts       npm run provider 的命令行：单独起一个服务器，亲手试各种失败
 *   protocol-checks.ts    真实服务会拒收的第二轮请求（思考块与签名、reasoning_content）这里也拒收
 *   profiles.ts           各家 OpenAI 兼容服务的口音（DeepSeek、Kimi、通义千问、GLM、硅基流动、Ollama、vLLM）
 *   recordings.ts         照真实服务写的思考模型事件流（DeepSeek-R1、Anthropic extended thinking）
 */
export * from "./provider-server.js";
export * from "./scripted-provider.js";
export * from "./provider-cli.js";
export * from "./protocol-checks.js";
export * from "./profiles.js";
export * from "./recordings.js";
export type * from "./types.js";
