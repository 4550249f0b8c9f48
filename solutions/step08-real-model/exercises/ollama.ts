/**
 * 练习 8 的参考答案（第 8.6 章）：第三种线上格式——Ollama 的 /api/chat（NDJSON）。
 *
 * 请求：POST {baseUrl}/api/chat，{ model, messages: [{ role, content: 文本 }], stream: true }
 * 响应：一行一个 JSON——{ message: { content }, done: false } 若干行，最后 { done: true, done_reason, prompt_eval_count, eval_count }；
 *       出错时是 { error: "…" }。
 * 还是同一个 StreamFn 契约：不 throw，所有失败都编码成 done 消息。本练习不处理工具调用。
 */

import { describeHttpError, describeNetworkError, describeStreamCut } from "../src/providers/http-error.js";
import type { AssistantMessage, Context, StopReason, StreamFn, Usage } from "../src/types.js";

export interface OllamaConfig {
  baseUrl: string;
  model: string;
}

interface OllamaLine {
  message?: { content?: string };
  done?: boolean;
  done_reason?: string;
  prompt_eval_count?: number;
  eval_count?: number;
  error?: string;
}

/** 消息换成 Ollama 的形状：content 只收纯文本。 */
function toOllamaMessages(context: Context): Array<{ role: string; content: string }> {
  const messages = context.systemPrompt ? [{ role: "system", content: context.systemPrompt }] : [];
  for (const message of context.messages) {
    if (message.role === "user") messages.push({ role: "user", content: message.content });
    else if (message.role === "assistant") {
      const text = message.content.map((part) => (part.type === "text" ? part.text : "")).join("");
      messages.push({ role: "assistant", content: text });
    } else messages.push({ role: "tool", content: message.content });
  }
  return messages;
}

/** 字节块 → 完整的行。TextDecoder 的 stream 模式会把半个汉字留到下一块；最后一段不完整的行也留着。 */
async function* readLines(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffer = "";
  for await (const bytes of body) {
    buffer += decoder.decode(bytes, { stream: true });
    let newline: number;
    while ((newline = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, newline).trim();
      buffer = buffer.slice(newline + 1);
      if (line) yield line;
    }
  }
  buffer += decoder.decode();
  if (buffer.trim()) yield buffer.trim();
}

export function createOllamaStream(config: OllamaConfig): StreamFn {
  return async function* (context, options) {
    const signal = options?.signal;
    let text = "";
    let usage: Usage | undefined;
    const finish = (stopReason: StopReason, errorMessage?: string): AssistantMessage => ({
      role: "assistant",
      content: text ? [{ type: "text", text }] : [],
      stopReason,
      ...(errorMessage !== undefined ? { errorMessage } : {}),
      ...(usage ? { usage } : {}),
    });
    let connected = false;
    try {
      const response = await fetch(`${config.baseUrl.replace(/\/+$/, "")}/api/chat`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model: config.model, messages: toOllamaMessages(context), stream: true }),
        signal,
      });
      connected = true;
      if (!response.ok || !response.body) {
        yield { type: "done", message: finish("error", response.ok ? "响应没有正文" : await describeHttpError(response)) };
        return;
      }
      let end: OllamaLine | undefined;
      for await (const raw of readLines(response.body)) {
        const line = JSON.parse(raw) as OllamaLine;
        if (line.error) {
          yield { type: "done", message: finish("error", `Ollama 报错：${line.error}`) };
          return;
        }
        const delta = line.message?.content;
        if (delta) {
          text += delta;
          yield { type: "text_delta", delta };
        }
        if (line.done) end = line;
      }
      if (signal?.aborted) {
        yield { type: "done", message: finish("aborted") };
      } else if (!end) {
        // 连接正常关了，可模型没说「完了」：这不是一次完整的回复
        yield { type: "done", message: finish("error", "流在结束前中断：没有收到 done 行") };
      } else {
        usage = { input: end.prompt_eval_count ?? 0, output: end.eval_count ?? 0, cacheRead: 0, cacheWrite: 0 };
        yield { type: "done", message: finish(end.done_reason === "length" ? "length" : "stop") };
      }
    } catch (error) {
      if (signal?.aborted) yield { type: "done", message: finish("aborted") };
      else yield { type: "done", message: finish("error", connected ? describeStreamCut(error) : describeNetworkError(error)) };
    }
  };
}
