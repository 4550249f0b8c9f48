/**
 * 把 Pi 的消息压成 observe.ts 的 PlainMessage，并拼出一次运行的 SideResult。Agent 与 AgentSession 两个跑法共用，所以单独放一个文件
 * （pi-session.ts 在子进程里运行，不能依赖只在 Node 20 这边用的代码）。
 */
import { isContextOverflow, isRetryableAssistantError, type Api, type Message, type Model } from "@earendil-works/pi-ai";
import { transformMessages } from "@earendil-works/pi-ai/api/transform-messages";
import type { PlainMessage, SideResult } from "./observe.ts";
import { MODEL_CONTEXT_WINDOW } from "./scenarios.ts";

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((b: { type?: string; text?: string }) => (b.type === "text" ? (b.text ?? "") : "")).join("");
}

export function plainPi(m: Message): PlainMessage {
  if (m.role === "user") return { role: "user", text: textOf(m.content) };
  if (m.role === "toolResult") return { role: "toolResult", text: textOf(m.content), toolName: m.toolName, isError: m.isError };
  if (m.role !== "assistant") {
    // 调用方已去掉 system 消息；剩下的是 AgentSession 压缩后放在开头的摘要（compactionSummary）
    const summary = (m as { summary?: unknown }).summary;
    return { role: "user", text: `（${String((m as { role: unknown }).role)}）${typeof summary === "string" ? summary : ""}` };
  }
  const out: PlainMessage = {
    role: "assistant",
    text: textOf(m.content),
    thinking: m.content.map((b) => (b.type === "thinking" ? b.thinking : "")).join(""),
    stopReason: m.stopReason,
    toolCalls: m.content.flatMap((b) => (b.type === "toolCall" ? [b.name] : [])),
  };
  if (m.stopReason === "error") {
    // 与 step09 的 classifyAssistantError 同一个顺序：先溢出，再可重试（AgentSession 的 _isRetryableError 也是这个顺序）
    out.errorClass = isContextOverflow(m, MODEL_CONTEXT_WINDOW) ? "overflow" : isRetryableAssistantError(m) ? "retryable" : "fatal";
  }
  if (m.errorMessage) out.errorMessage = m.errorMessage;
  return out;
}

/** Pi 没有 abort 事件：运行以一条 aborted 的助手消息结束，就记一个 abort，与 step09 的 abort 事件对齐。 */
function piEndedByAbort(history: Message[]): boolean {
  const last = [...history].reverse().find((m) => m.role === "assistant");
  return last?.role === "assistant" && last.stopReason === "aborted" && history[history.length - 1] === last;
}

/** 一次 Pi 运行的结果（两个跑法共用）：历史、下一次请求真正会发的消息（Pi 自己的 transformMessages 之后）、请求数与事件。 */
export function piSideResult(history: Message[], model: Model<Api>, requests: number, events: string[]): SideResult {
  if (piEndedByAbort(history)) events.push("abort");
  return {
    history: history.map(plainPi),
    nextRequest: transformMessages([...history], model).map(plainPi),
    requests,
    events,
  };
}
