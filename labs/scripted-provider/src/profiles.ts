/**
 * 各家 OpenAI 兼容服务的「口音」：同一份剧本，换一个 profile，流与错误正文就照那一家的样子发。
 * 只收读者最常接的几家、它们真的和 OpenAI 不一样的地方；每一处怪脾气都在注释里写明公开出处。
 * 用法：startProviderServer(script, { profile: "deepseek" })，或 npm run provider -- --profile deepseek。
 */

export type ProfileName = "deepseek" | "kimi" | "qwen" | "glm" | "siliconflow" | "ollama" | "vllm";

export interface Profile {
  /** 思考模式默认开着：每条回复先发这段推理（不设 = 不发推理）。 */
  thinking?: string;
  /** 推理放在增量的哪个字段里。 */
  reasoningField: "reasoning_content" | "reasoning";
  /** 用量放在哪里：单独的最后一块（choices 为空，OpenAI 的做法）、收尾那一块的顶层、收尾那一块的 choices[0].usage。 */
  usage: "own-chunk" | "finish-chunk" | "in-choice";
  /** 工具调用的增量带不带 index。 */
  toolCallIndex: boolean;
  /** 每个工具调用一次给全（id、名字、全部参数），不分片。 */
  wholeToolCalls: boolean;
  /** 工具调用与 finish_reason 在同一块里。 */
  toolCallsWithFinish: boolean;
  /** 调过工具的助手消息，下一轮必须带着 reasoning_content 回来，否则 400（protocol-checks.ts）。 */
  reasoningBack: boolean;
  /** --fail <状态码> 时回的错误正文（原样，不套我们自己的格式）；没列的状态码用通用的正文。 */
  errors: Record<number, unknown>;
}

/** OpenAI 本家的形状：不给 profile 时服务器就这样说话。 */
export const OPENAI: Profile = {
  reasoningField: "reasoning_content",
  usage: "own-chunk",
  toolCallIndex: true,
  wholeToolCalls: false,
  toolCallsWithFinish: false,
  reasoningBack: false,
  errors: {},
};

/** DeepSeek 思考模式没带回推理时的 400，一字不差（例：borawong/AiMaMi#8、endolith/open-interpreter#215 里转述的原始正文）。 */
export const DEEPSEEK_REASONING_MISSING = {
  error: {
    message: "The `reasoning_content` in the thinking mode must be passed back to the API.",
    type: "invalid_request_error",
    param: null,
    code: "invalid_request_error",
  },
};

export const PROFILES: Record<ProfileName, Profile> = {
  deepseek: {
    ...OPENAI,
    // 思考模式默认打开，推理在 reasoning_content 里；调过工具的那条助手消息，推理必须回传，否则 400
    // （api-docs.deepseek.com/guides/thinking_mode 的「工具调用」一节）
    thinking: "先想一想：用户要的是什么，要不要用工具。",
    reasoningBack: true,
    // 用量跟着 finish_reason 那一块一起来，带 prompt_cache_hit_tokens（api-docs.deepseek.com/guides/kv_cache；recordings.ts 的 DEEPSEEK_R1_THINKING 同形）
    usage: "finish-chunk",
    errors: {
      // 余额不足：402（api-docs.deepseek.com/quick_start/error_codes；正文见 Aider-AI/aider#4851）
      402: { error: { message: "Insufficient Balance", type: "unknown_error", param: null, code: "invalid_request_error" } },
      400: DEEPSEEK_REASONING_MISSING,
    },
  },
  kimi: {
    ...OPENAI,
    // kimi-k2-thinking 的推理同样在 reasoning_content 里（platform.moonshot.cn 的 Kimi K2 思考模型文档）
    thinking: "先想一想该怎么回答。",
    // 流式的用量不在 chunk.usage，而在收尾那一块的 choices[0].usage（earendil-works/pi#2017、PR #2016）
    usage: "in-choice",
    errors: {
      // 欠费停用也是 429（MoonshotAI/kimi-code#1857 引用的原文）
      429: {
        error: {
          message: "Your account org-0000 <ak-0000> is suspended due to insufficient balance, please recharge your account or check your plan and billing details",
          type: "exceeded_current_quota_error",
        },
      },
    },
  },
  qwen: {
    ...OPENAI,
    // 通义千问（DashScope 兼容模式）的深度思考：推理在 reasoning_content；用量在 choices 为空的最后一块（help.aliyun.com「OpenAI 兼容 - 深度思考」）
    thinking: "先想一想该怎么回答。",
    errors: {
      // 欠费：400，code Arrearage（help.aliyun.com/zh/model-studio/error-code#overdue-payment；措辞见 1Panel-dev/MaxKB#5297）
      400: { error: { message: "Access denied, please make sure your account is in good standing.", type: "Arrearage", param: null, code: "Arrearage" } },
    },
  },
  glm: {
    ...OPENAI,
    // 智谱 GLM-4.5 起的思考模式：推理在 reasoning_content（docs.bigmodel.cn「深度思考」）
    thinking: "先想一想该怎么回答。",
    // 工具调用一次给全，而且和 finish_reason 在同一块里（jeremychone/rust-genai#199）
    wholeToolCalls: true,
    toolCallsWithFinish: true,
    errors: {
      // 欠费用 429 回（langgenius/dify#5850 的原文）
      429: { error: { code: "1113", message: "您的账户已欠费，请充值后重试。" } },
    },
  },
  siliconflow: {
    ...OPENAI,
    // 推理模型的推理在 reasoning_content（docs.siliconflow.cn「推理模型」）
    thinking: "先想一想该怎么回答。",
    errors: {
      // 错误正文不套 error 信封（FoundationAgents/OpenManus#438、AIDotNet/OpenDeepWiki#269 的原文）
      403: { code: 30011, message: "The selected model requires paid balance. Your paid balance is insufficient. Please top up and try again.", data: null },
      429: { message: "Request was rejected due to rate limiting. Details: TPM limit reached.", data: null },
    },
  },
  ollama: {
    ...OPENAI,
    // 老版本的 OpenAI 兼容接口里，工具调用不带 index（ollama/ollama#7881，0.4.7 修好），
    // 一个调用一次给全、参数不分片（ollama/ollama#12557）
    toolCallIndex: false,
    wholeToolCalls: true,
    errors: {
      // 模型没拉下来：404，类型按状态码给（ollama 仓库 openai/openai.go 的 NewError）
      404: { error: { message: 'model "qwen2.5" not found, try pulling it first', type: "not_found_error", param: null, code: null } },
    },
  },
  vllm: {
    ...OPENAI,
    // 新版 vLLM 把推理字段从 reasoning_content 改名为 reasoning（vllm-project/vllm#27755、PR #27752）
    thinking: "先想一想该怎么回答。",
    reasoningField: "reasoning",
    errors: {
      // 0.10.1 之前的错误正文不套 error 信封（foundation-model-stack/fms-guardrails-orchestrator#511 的新旧对照）
      400: { object: "error", message: "This model's maximum context length is 32768 tokens. However, you requested 39197 tokens in the messages, Please reduce the length of the messages.", type: "BadRequestError", param: null, code: 400 },
    },
  },
};

export const PROFILE_NAMES = Object.keys(PROFILES) as ProfileName[];

export function isProfileName(name: string): name is ProfileName {
  return (PROFILE_NAMES as string[]).includes(name);
}
