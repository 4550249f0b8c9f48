/**
 * 照真实服务的样子写的思考模型事件流（字段、分片、收尾都照抄真实响应的形状），用 { raw } 回合原样回放。
 * 它们和服务器自己按 thinking 字段生成的流互为对照：生成的流是「最小的」，这里是「真实的」——
 * DeepSeek 开头一块 reasoning_content 为空串、回答时 reasoning_content 变成 null、usage 里有 reasoning_tokens；
 * Anthropic 的思考块先于文字与工具调用，签名单独一个 signature_delta，中间夹着 ping。
 */

const deepseekChunk = (delta: string, finish: string | null = null, usage = "null"): string =>
  `data: {"id":"5b8f3c0e-2a41-4d7e-9a53-0c2f6b1e7d94","object":"chat.completion.chunk","created":1737000000,"model":"deepseek-reasoner","system_fingerprint":"fp_7e73fd9a08_prod0225","choices":[{"index":0,"delta":${delta},"logprobs":null,"finish_reason":${finish === null ? "null" : `"${finish}"`}}],"usage":${usage}}\n\n`;

/** DeepSeek-R1（deepseek-reasoner）：先推理，再回答。 */
export const DEEPSEEK_R1_THINKING =
  deepseekChunk('{"role":"assistant","content":null,"reasoning_content":""}') +
  deepseekChunk('{"content":null,"reasoning_content":"用户问 9.11 和 9.9 哪个大。"}') +
  deepseekChunk('{"content":null,"reasoning_content":"比较小数部分：0.11 < 0.90。"}') +
  deepseekChunk('{"content":null,"reasoning_content":"\\n所以 9.9 更大。"}') +
  deepseekChunk('{"content":"9.9 更大","reasoning_content":null}') +
  deepseekChunk('{"content":"。","reasoning_content":null}') +
  deepseekChunk('{"content":"","reasoning_content":null}', "stop", '{"prompt_tokens":18,"completion_tokens":64,"total_tokens":82,"prompt_tokens_details":{"cached_tokens":0},"completion_tokens_details":{"reasoning_tokens":52},"prompt_cache_hit_tokens":0,"prompt_cache_miss_tokens":18}') +
  "data: [DONE]\n\n";

const anthropicEvent = (type: string, data: string): string => `event: ${type}\ndata: {"type":"${type}"${data ? `,${data}` : ""}}\n\n`;

/** 录音里思考块的签名：回放第二轮时客户端必须原样送回它。 */
export const ANTHROPIC_THINKING_SIGNATURE =
  "EqQBCkgIARABGAIiQL2wQ6m0t4mBqzLrm3g3SXh5m8jQw5dAq0l7kG9pUuR1YvJrT2fXo3qQ0Zb7nC8wE1sD4aF6hK9jL2mN5pS8vUyEgxI0b1c2d3e4f5g6h7i8";

/** Anthropic（extended thinking 打开）：先想，再说一句，再调用 calc。 */
export const ANTHROPIC_THINKING_TOOL_USE =
  anthropicEvent(
    "message_start",
    '"message":{"id":"msg_01Hh7WnmUuV3FQ7LnS3GkZ9c","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":612,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":4}}',
  ) +
  anthropicEvent("content_block_start", '"index":0,"content_block":{"type":"thinking","thinking":"","signature":""}') +
  anthropicEvent("ping", "") +
  anthropicEvent("content_block_delta", '"index":0,"delta":{"type":"thinking_delta","thinking":"用户要算 17*38。"}') +
  anthropicEvent("content_block_delta", '"index":0,"delta":{"type":"thinking_delta","thinking":"心算容易错，\\n用 calc 工具。"}') +
  anthropicEvent("content_block_delta", `"index":0,"delta":{"type":"signature_delta","signature":"${ANTHROPIC_THINKING_SIGNATURE}"}`) +
  anthropicEvent("content_block_stop", '"index":0') +
  anthropicEvent("content_block_start", '"index":1,"content_block":{"type":"text","text":""}') +
  anthropicEvent("content_block_delta", '"index":1,"delta":{"type":"text_delta","text":"我用 calc 算一下。"}') +
  anthropicEvent("content_block_stop", '"index":1') +
  anthropicEvent("content_block_start", '"index":2,"content_block":{"type":"tool_use","id":"toolu_01D7FLrfh4GYq7yT1ULmeyMY","name":"calc","input":{}}') +
  anthropicEvent("content_block_delta", '"index":2,"delta":{"type":"input_json_delta","partial_json":""}') +
  anthropicEvent("content_block_delta", '"index":2,"delta":{"type":"input_json_delta","partial_json":"{\\"expression\\": \\"17*38\\"}"}') +
  anthropicEvent("content_block_stop", '"index":2') +
  anthropicEvent("message_delta", '"delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":96}') +
  anthropicEvent("message_stop", "");

/** Anthropic：拿到工具结果之后的回答（这一轮没有新的思考块：思考只在调用工具之前）。 */
export const ANTHROPIC_THINKING_ANSWER =
  anthropicEvent(
    "message_start",
    '"message":{"id":"msg_01Nq4c8ZkYc2b5FVi7Tn4xQe","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":731,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":2}}',
  ) +
  anthropicEvent("content_block_start", '"index":0,"content_block":{"type":"text","text":""}') +
  anthropicEvent("content_block_delta", '"index":0,"delta":{"type":"text_delta","text":"17*38 = 646。"}') +
  anthropicEvent("content_block_stop", '"index":0') +
  anthropicEvent("message_delta", '"delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":12}') +
  anthropicEvent("message_stop", "");
