/**
 * Anthropic Messages 协议（流式）。Claude 本家，以及提供「Anthropic 兼容」入口的服务
 * （如 DeepSeek、Moonshot 的 /anthropic）都说这种话。
 */
import { mapStopReason, parseChunk, type Parsed, type Shape } from "../guards/json.js";
import type { SseEvent } from "../sse.js";
import type { Context, StopReason, StreamFn, Usage } from "../types.js";
import { errorDetail } from "./http-error.js";
import type { ConnectionConfig } from "./config.js";
import type { ReplyBuilder } from "./reply.js";
import { streamRequest, type WireDecoder } from "./stream-request.js";
import { toolsToSend, transformMessages } from "./transform-messages.js";

export type AnthropicConfig = ConnectionConfig;

export const ANTHROPIC_DEFAULT_MAX_TOKENS = 8192;

export function createAnthropicStream(config: AnthropicConfig): StreamFn {
  return (context, options) =>
    streamRequest(config, {
      path: "/v1/messages",
      headers: {
        ...(config.apiKey ? { "x-api-key": config.apiKey } : {}),
        "anthropic-version": "2023-06-01",
      },
      body: () => buildAnthropicRequest(config, context),
      decoder: new AnthropicDecoder(),
    }, options);
}

// ── 请求：我们的 Context → Messages API 的内容块 ───────────────────

type AnthropicBlock =
  | { type: "text"; text: string }
  | { type: "thinking"; thinking: string; signature: string }
  | { type: "tool_use"; id: string; name: string; input: Record<string, unknown> }
  | { type: "tool_result"; tool_use_id: string; content: string; is_error: boolean };

interface AnthropicMessage {
  role: "user" | "assistant";
  content: string | AnthropicBlock[];
}

export function buildAnthropicRequest(config: AnthropicConfig, context: Context): Record<string, unknown> {
  const tools = toolsToSend(context.tools);
  const messages: AnthropicMessage[] = [];
  for (const message of transformMessages(context.messages)) {
    if (message.role === "user") {
      messages.push({ role: "user", content: message.content });
    } else if (message.role === "toolResult") {
      const block: AnthropicBlock = { type: "tool_result", tool_use_id: message.toolCallId, content: message.content, is_error: message.isError === true };
      // Anthropic 没有「工具」角色：结果放进 user 消息，连续几条结果合成一条
      const last = messages.at(-1);
      if (last?.role === "user" && Array.isArray(last.content)) last.content.push(block);
      else messages.push({ role: "user", content: [block] });
    } else {
      const blocks: AnthropicBlock[] = [];
      for (const block of message.content) {
        if (block.type === "toolCall") {
          blocks.push({ type: "tool_use", id: block.id, name: block.name, input: block.arguments });
        } else if (block.type === "thinking") {
          // 开着思考又带工具调用时，协议要求把思考块连同签名原样送回；没签名的（别家模型的推理）送不回去，丢掉
          if (block.thinkingSignature) blocks.push({ type: "thinking", thinking: block.thinking, signature: block.thinkingSignature });
        } else if (block.text !== "") {
          blocks.push({ type: "text", text: block.text }); // 空文本块会被拒收
        }
      }
      if (blocks.length > 0) messages.push({ role: "assistant", content: blocks });
    }
  }
  return {
    model: config.model,
    max_tokens: config.maxTokens ?? ANTHROPIC_DEFAULT_MAX_TOKENS,
    ...(context.systemPrompt ? { system: context.systemPrompt } : {}),
    messages,
    ...(tools.length > 0 ? { tools: tools.map(({ name, description, parameters }) => ({ name, description, input_schema: parameters })) } : {}),
    stream: true,
  };
}

// ── 响应：带 event 名的一串事件 ───────────────────────────────────

class AnthropicDecoder implements WireDecoder {
  private stopReason: string | undefined;
  private finished = false;
  private failure: string | undefined;
  private readonly startInput = new Map<string, string>();

  onEvent(event: SseEvent, reply: ReplyBuilder): void {
    if (this.finished || this.failure) return undefined;
    const data: AnthropicEvent | string = parseChunk(event.data, EVENT_SHAPE);
    if (typeof data === "string") {
      this.failure = data;
      return undefined;
    }
    const key = `#${data.index ?? 0}`;
    switch (data.type ?? event.event) {
      case "message_start":
        reply.usage = toUsage(data.message?.usage, { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 });
        return undefined;
      case "content_block_start": {
        const block = data.content_block;
        if (block?.type === "tool_use") {
          const draft = reply.tool(key, block.id);
          draft.name = block.name ?? "";
          // 参数本该随后以 input_json_delta 分片到达；个别兼容服务器在这里一次给全，先记下备用
          if (block.input && typeof block.input === "object") this.startInput.set(key, JSON.stringify(block.input));
        } else if (block?.type === "text" && block.text) {
          reply.text(block.text);
        } else if (block?.type === "thinking") {
          reply.thinking(block.thinking ?? "", block.signature ?? "");
        }
        return undefined;
      }
      case "content_block_delta": {
        const delta = data.delta;
        if (delta?.type === "text_delta" && delta.text) reply.text(delta.text);
        else if (delta?.type === "thinking_delta" && delta.thinking) reply.thinking(delta.thinking);
        else if (delta?.type === "signature_delta" && delta.signature) reply.thinking("", delta.signature);
        else if (delta?.type === "input_json_delta" && delta.partial_json) {
          const draft = reply.findTool(key);
          // 没开始过的块：没有名字也没有 id，当成调用只会让整轮失败。丢掉这段参数，别的照常
          if (draft) reply.toolArgs(draft, delta.partial_json);
          else console.warn(`[警告] 模型服务发来了内容块 ${data.index ?? 0} 的工具参数，但这个块从没开始过：已忽略`);
        }
        return undefined; // 不认识的增量：忽略
      }
      case "content_block_stop": {
        const draft = reply.findTool(key);
        const input = this.startInput.get(key);
        if (draft && draft.json === "" && input !== undefined) reply.toolArgs(draft, input); // 没有分片：用开头给的
        return undefined;
      }
      case "message_delta":
        if (data.delta?.stop_reason) this.stopReason = data.delta.stop_reason;
        if (reply.usage && data.usage) reply.usage = toUsage(data.usage, reply.usage);
        return undefined;
      case "message_stop":
        this.finished = true;
        return undefined;
      case "error":
        this.failure = `流中错误：${errorDetail(data) ?? event.data.slice(0, 200)}`;
        return undefined;
      default: // ping 以及将来的新事件
        return undefined;
    }
  }

  complete(): boolean {
    return this.finished;
  }

  end(): { stopReason: StopReason; errorMessage?: string } {
    if (this.failure) return { stopReason: "error", errorMessage: this.failure };
    if (this.stopReason === undefined) return { stopReason: "error", errorMessage: "流在结束前中断（没有收到 stop_reason）" };
    return mapStopReason("stop_reason", this.stopReason, STOP_REASONS);
  }
}

/** stop_reason 与我们的 StopReason；表里没有的（refusal 以及不认识的）算失败。 */
const STOP_REASONS = new Map<string, StopReason>([["end_turn", "stop"], ["stop_sequence", "stop"], ["tool_use", "toolUse"], ["max_tokens", "length"]]);

/** 用量：没给的字段沿用 base。output_tokens 是累计值而不是增量：message_delta 里的留最后一个，不能相加。 */
function toUsage(raw: Parsed<typeof USAGE_SHAPE> | null | undefined, base: Usage): Usage {
  return {
    input: raw?.input_tokens ?? base.input,
    output: raw?.output_tokens ?? base.output,
    cacheRead: raw?.cache_read_input_tokens ?? base.cacheRead,
    cacheWrite: raw?.cache_creation_input_tokens ?? base.cacheWrite,
  };
}

/** 我们会读的字段与它们应有的样子（按 type 区分的几种事件揉在一起，全部可以缺省；AnthropicEvent 类型也由它推出）。 */
const USAGE_SHAPE = { input_tokens: "count", output_tokens: "count", cache_read_input_tokens: "count", cache_creation_input_tokens: "count" } as const;
const EVENT_SHAPE = {
  type: "string", index: "count", message: { usage: USAGE_SHAPE }, usage: USAGE_SHAPE,
  content_block: { type: "string", id: "string", name: "string", text: "string", input: {}, thinking: "string", signature: "string" },
  delta: { type: "string", text: "string", thinking: "string", signature: "string", partial_json: "string", stop_reason: "string" },
} as const satisfies Shape;
type AnthropicEvent = Parsed<typeof EVENT_SHAPE> & { error?: unknown };
