/**
 * 看起来像「录下来的」真实响应流：字段、分片方式照真实服务的样子写
 * （OpenAI 的 system_fingerprint、usage 单独一块、[DONE]；Anthropic 的 event 行、ping）。
 * CLI 测试让测试服务器原样回放它们，检验整条链路对真实格式的处理。
 */

const openaiChunk = (delta: string, finish: string | null = null): string =>
  `data: {"id":"chatcmpl-AX1b2C3d4E5f","object":"chat.completion.chunk","created":1732870000,"model":"gpt-4o-mini-2024-07-18","system_fingerprint":"fp_0ba0d124f1","choices":[{"index":0,"delta":${delta},"logprobs":null,"finish_reason":${finish === null ? "null" : `"${finish}"`}}],"usage":null}\n\n`;

const openaiUsage = (prompt: number, completion: number): string =>
  `data: {"id":"chatcmpl-AX1b2C3d4E5f","object":"chat.completion.chunk","created":1732870000,"model":"gpt-4o-mini-2024-07-18","system_fingerprint":"fp_0ba0d124f1","choices":[],"usage":{"prompt_tokens":${prompt},"completion_tokens":${completion},"total_tokens":${prompt + completion},"prompt_tokens_details":{"cached_tokens":0,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":0}}}\n\n`;

/** OpenAI：先说一句，再调用 upper，参数分三片到达。 */
export const OPENAI_UPPER =
  openaiChunk('{"role":"assistant","content":"","refusal":null}') +
  openaiChunk('{"content":"好的，"}') +
  openaiChunk('{"content":"我来转换。"}') +
  openaiChunk('{"tool_calls":[{"index":0,"id":"call_Qx7pLm2","type":"function","function":{"name":"upper","arguments":""}}]}') +
  openaiChunk('{"tool_calls":[{"index":0,"function":{"arguments":"{\\"te"}}]}') +
  openaiChunk('{"tool_calls":[{"index":0,"function":{"arguments":"xt\\":\\"hello"}}]}') +
  openaiChunk('{"tool_calls":[{"index":0,"function":{"arguments":" world\\"}"}}]}') +
  openaiChunk("{}", "tool_calls") +
  openaiUsage(142, 21) +
  "data: [DONE]\n\n";

/** OpenAI：拿到工具结果之后的回答。 */
export const OPENAI_ANSWER =
  openaiChunk('{"role":"assistant","content":""}') +
  openaiChunk('{"content":"转好了："}') +
  openaiChunk('{"content":"HELLO WORLD"}') +
  openaiChunk("{}", "stop") +
  openaiUsage(171, 8) +
  "data: [DONE]\n\n";

const anthropicEvent = (type: string, data: string): string => `event: ${type}\ndata: {"type":"${type}"${data ? `,${data}` : ""}}\n\n`;

const anthropicStart = (input: number): string =>
  anthropicEvent(
    "message_start",
    `"message":{"id":"msg_01XFDUDYJgAACzvnptvVoYEL","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":${input},"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":1}}`,
  );

/** Anthropic：一段文字，然后一个 calc 的 tool_use，参数以 input_json_delta 分片到达。 */
export const ANTHROPIC_CALC =
  anthropicStart(512) +
  anthropicEvent("content_block_start", '"index":0,"content_block":{"type":"text","text":""}') +
  anthropicEvent("ping", "") +
  anthropicEvent("content_block_delta", '"index":0,"delta":{"type":"text_delta","text":"我用 calc "}') +
  anthropicEvent("content_block_delta", '"index":0,"delta":{"type":"text_delta","text":"算一下。"}') +
  anthropicEvent("content_block_stop", '"index":0') +
  anthropicEvent("content_block_start", '"index":1,"content_block":{"type":"tool_use","id":"toolu_01T1x1fJ34qAmk2tNTrN7Up6","name":"calc","input":{}}') +
  anthropicEvent("content_block_delta", '"index":1,"delta":{"type":"input_json_delta","partial_json":""}') +
  anthropicEvent("content_block_delta", '"index":1,"delta":{"type":"input_json_delta","partial_json":"{\\"expressi"}') +
  anthropicEvent("content_block_delta", '"index":1,"delta":{"type":"input_json_delta","partial_json":"on\\": \\"6*7\\"}"}') +
  anthropicEvent("content_block_stop", '"index":1') +
  anthropicEvent("message_delta", '"delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":58}') +
  anthropicEvent("message_stop", "");

/** Anthropic：拿到工具结果之后的回答。 */
export const ANTHROPIC_ANSWER =
  anthropicStart(601) +
  anthropicEvent("content_block_start", '"index":0,"content_block":{"type":"text","text":""}') +
  anthropicEvent("content_block_delta", '"index":0,"delta":{"type":"text_delta","text":"6 乘 7 "}') +
  anthropicEvent("content_block_delta", '"index":0,"delta":{"type":"text_delta","text":"等于 42。"}') +
  anthropicEvent("content_block_stop", '"index":0') +
  anthropicEvent("message_delta", '"delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":12}') +
  anthropicEvent("message_stop", "");
