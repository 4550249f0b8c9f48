/**
 * OpenAI Chat Completions 协议（流式）。OpenAI 本家以及 DeepSeek、通义千问、Moonshot、
 * GLM、Ollama、vLLM、llama.cpp 等「OpenAI 兼容」服务都说这种话。
 */
import { mapStopReason, parseChunk, type Parsed, type Shape } from "../guards/json.js";
import type { SseEvent } from "../sse.js";
import type { Context, StopReason, StreamFn, Usage } from "../types.js";
import { errorDetail } from "./http-error.js";
import type { ConnectionConfig } from "./config.js";
import type { ReplyBuilder } from "./reply.js";
import { streamRequest, type WireDecoder } from "./stream-request.js";
import { toolsToSend, transformMessages } from "./transform-messages.js";

export type OpenAIConfig = ConnectionConfig;

export function createOpenAIStream(config: OpenAIConfig): StreamFn {
  return (context, options) =>
    streamRequest(config, {
      path: "/chat/completions",
      // 本地服务（如 Ollama）可以不要密钥：没有就不发这个头
      headers: config.apiKey ? { authorization: `Bearer ${config.apiKey}` } : {},
      body: () => buildOpenAIRequest(config, context),
      decoder: new OpenAIDecoder(),
    }, options);
}

// ── 请求：我们的 Context → Chat Completions 的 messages ─────────────

type OpenAIMessage =
  | { role: "system" | "user"; content: string }
  | { role: "assistant"; content: string | null; reasoning_content?: string; tool_calls?: OpenAIToolCall[] }
  | { role: "tool"; tool_call_id: string; content: string };

interface OpenAIToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

export function buildOpenAIRequest(config: OpenAIConfig, context: Context): Record<string, unknown> {
  const tools = toolsToSend(context.tools);
  const messages: OpenAIMessage[] = [];
  if (context.systemPrompt) messages.push({ role: "system", content: context.systemPrompt });
  for (const message of transformMessages(context.messages)) {
    if (message.role === "user") {
      messages.push({ role: "user", content: message.content });
    } else if (message.role === "toolResult") {
      messages.push({ role: "tool", tool_call_id: message.toolCallId, content: message.content });
    } else {
      let text = "";
      let reasoning = "";
      const toolCalls: OpenAIToolCall[] = [];
      for (const block of message.content) {
        if (block.type === "text") text += block.text;
        else if (block.type === "thinking") reasoning += block.thinking;
        // 协议要求参数是 JSON 字符串，而不是对象
        else if (block.type === "toolCall") toolCalls.push({ id: block.id, type: "function", function: { name: block.name, arguments: JSON.stringify(block.arguments) } });
      }
      // 既没文字也没工具调用的助手消息，不少服务会直接拒收
      if (text === "" && toolCalls.length === 0) continue;
      // DeepSeek 的思考模式：调过工具的那条消息，推理要原样送回，否则 400；没调工具的送不送都一样，不送（为什么不照 Pi，见 8.6）
      const thinking = toolCalls.length > 0 && reasoning !== "" ? { reasoning_content: reasoning } : {};
      messages.push({ role: "assistant", content: text === "" ? null : text, ...thinking, ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}) });
    }
  }
  return {
    model: config.model,
    messages,
    stream: true,
    // 让最后一块带上 token 用量
    stream_options: { include_usage: true },
    ...(config.maxTokens ? { max_tokens: config.maxTokens } : {}),
    ...(tools.length > 0 ? { tools: tools.map(({ name, description, parameters }) => ({ type: "function", function: { name, description, parameters } })) } : {}),
  };
}

// ── 响应：一块块 chat.completion.chunk ────────────────────────────

class OpenAIDecoder implements WireDecoder {
  private finishReason: string | undefined;
  private sawDone = false;
  private failure: string | undefined;
  private lastKey = "#0";

  onEvent(event: SseEvent, reply: ReplyBuilder): void {
    if (this.sawDone || this.failure) return undefined; // 结束之后的内容一概不理
    this.sawDone = event.data === "[DONE]";
    if (this.sawDone) return undefined;
    const chunk: OpenAIChunk | string = parseChunk(event.data, CHUNK_SHAPE);
    if (typeof chunk === "string") {
      this.failure = chunk;
      return undefined;
    }
    // 200 的流里也可能来一个错误（例如服务过载），这时不会再有 finish_reason
    if (chunk.error !== undefined) {
      this.failure = `流中错误：${errorDetail(chunk) ?? JSON.stringify(chunk.error)}`;
      return undefined;
    }
    // 用量一般在 chunk.usage；Kimi（Moonshot）放在收尾那一块的 choices[0].usage 里
    const usage = chunk.usage ?? chunk.choices?.[0]?.usage;
    if (usage) reply.usage = toUsage(usage);
    const choice = chunk.choices?.[0];
    if (!choice) return undefined; // 只带用量的最后一块没有 choices
    for (const part of choice.delta?.tool_calls ?? []) {
      // 同一个调用的碎片靠 index 认领；id 与 name 通常只在第一片里出现。
      // 个别兼容服务器不给 index：有 id 按 id 认领，都没有就算作上一个调用的续片
      const key = typeof part.index === "number" ? `#${part.index}` : part.id ? `id:${part.id}` : this.lastKey;
      this.lastKey = key;
      const draft = reply.tool(key, part.id);
      if (part.function?.name && !draft.name) draft.name = part.function.name;
      if (part.function?.arguments) reply.toolArgs(draft, part.function.arguments);
    }
    if (choice.finish_reason) this.finishReason = choice.finish_reason;
    // 两个字段都给时取第一个非空的，免得同一段推理显示两遍（Pi 也这样）
    // 推理在前、回答在后：有的代理（如 LiteLLM）会把两者放进同一个增量
    const reasoning = choice.delta?.reasoning_content || choice.delta?.reasoning;
    if (reasoning) reply.thinking(reasoning);
    const text = choice.delta?.content;
    if (text) reply.text(text);
    return undefined;
  }

  complete(): boolean {
    return this.sawDone;
  }

  end(): { stopReason: StopReason; errorMessage?: string } {
    if (this.failure) return { stopReason: "error", errorMessage: this.failure };
    if (this.finishReason === undefined) {
      // 收到了 [DONE] 说明服务器是正常收尾的，只是没报原因
      if (this.sawDone) return { stopReason: "stop" };
      return { stopReason: "error", errorMessage: "流在结束前中断（没有收到 finish_reason）" };
    }
    return mapStopReason("finish_reason", this.finishReason, FINISH_REASONS);
  }
}

/** finish_reason 与我们的 StopReason；表里没有的（content_filter 以及不认识的）算失败。 */
const FINISH_REASONS = new Map<string, StopReason>([["stop", "stop"], ["tool_calls", "toolUse"], ["function_call", "toolUse"], ["length", "length"]]);

function toUsage(raw: Parsed<typeof USAGE_SHAPE>): Usage {
  const cacheRead = raw.prompt_tokens_details?.cached_tokens ?? raw.prompt_cache_hit_tokens ?? 0;
  return {
    // prompt_tokens 里包含命中缓存的部分；Pi 的 input 不含它
    input: Math.max(0, (raw.prompt_tokens ?? 0) - cacheRead),
    output: raw.completion_tokens ?? 0,
    cacheRead,
    cacheWrite: 0,
  };
}

/** 我们会读的字段与它们应有的样子（parseChunk 据此检查，OpenAIChunk 类型也由它推出）；全部可以缺省，因为兼容服务器各有省略。 */
// DeepSeek 用自己的字段名 prompt_cache_hit_tokens 报告缓存命中
const USAGE_SHAPE = { prompt_tokens: "count", completion_tokens: "count", prompt_tokens_details: { cached_tokens: "count" }, prompt_cache_hit_tokens: "count" } as const;
const CHUNK_SHAPE = {
  usage: USAGE_SHAPE,
  choices: [{
    // 思考模型的推理：DeepSeek、Qwen、Kimi 用 reasoning_content，OpenRouter、vLLM 等用 reasoning
    delta: { content: "string", reasoning_content: "string", reasoning: "string", tool_calls: [{ index: "count", id: "string", function: { name: "string", arguments: "string" } }] },
    finish_reason: "string",
    usage: USAGE_SHAPE,
  }],
} as const satisfies Shape;
type OpenAIChunk = Parsed<typeof CHUNK_SHAPE> & { error?: unknown };
