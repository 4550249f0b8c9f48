import type { HttpRetryOptions } from "./http-retry.js";

/** 连接一个模型服务需要的设置。两种协议要的东西一样，只在这里写一次。 */
export interface ConnectionConfig {
  /** 服务地址；协议在后面接上自己的路径（OpenAI：/chat/completions，Anthropic：/v1/messages）。 */
  baseUrl: string;
  /** 空串表示没有配置密钥：本地服务（如 Ollama）可以不要。 */
  apiKey: string;
  model: string;
  /** 输出上限。OpenAI 不给就不发；Anthropic 要求必须给出，不给时用默认值。 */
  maxTokens?: number | undefined;
  /** 换一个 fetch 实现（一般不需要）。 */
  fetch?: typeof fetch | undefined;
  /** HTTP 层最多重试几次（默认 2，0 = 不重试）。 */
  maxRetries?: number | undefined;
  /** 服务器要求的等待超过它就放弃（毫秒，默认 60 000，0 = 不设上限）。 */
  maxRetryDelayMs?: number | undefined;
  /** HTTP 层每次等待之前调用（main.ts 用它显示倒计时）；返回的函数在等完后调用。 */
  onRetryWait?: HttpRetryOptions["onWait"];
}
