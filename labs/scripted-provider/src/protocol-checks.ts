/**
 * 协议检查：真实服务会拒收的第二轮请求，这里也拒收（HTTP 400，措辞照真实服务）。
 * 只查思考模型的两条规矩，因为客户端最容易在这里出错：
 *   - Anthropic：开着思考又调了工具，下一轮的助手消息必须以那个思考块开头，签名原样送回；
 *   - DeepSeek（OpenAI 兼容）：reasoning_content 不能出现在发回去的消息里。
 * 服务器发过思考块的工具调用记在这里；没发过的对话一概不查。
 */
import { createHash } from "node:crypto";
import type { Api } from "./provider-server.js";

/** 思考块的签名：由内容算出，确定、可复现（真实服务的签名是加密的，这里只求「对不上就能发现」）。 */
export function signatureOf(thinking: string): string {
  return `EqQBCkgIARABGAIiQ${createHash("sha256").update(thinking).digest("base64url").slice(0, 40)}`;
}

export class ThinkingLedger {
  /** 工具调用 id → 与它同一条回复里的思考块。 */
  private readonly issued = new Map<string, { thinking: string; signature: string }>();

  /** 服务器发出了一条带思考块的 Anthropic 回复，里面有这些工具调用。 */
  issue(toolIds: readonly string[], thinking: string): void {
    for (const id of toolIds) this.issued.set(id, { thinking, signature: signatureOf(thinking) });
  }

  /** 检查一个请求体；违反协议时返回真实服务会说的那句错误，否则 undefined。 */
  check(api: Api, body: unknown): string | undefined {
    const messages = (typeof body === "object" && body !== null ? (body as { messages?: unknown }).messages : undefined) ?? [];
    if (!Array.isArray(messages)) return undefined;
    for (const [i, message] of messages.entries()) {
      if (typeof message !== "object" || message === null || (message as { role?: unknown }).role !== "assistant") continue;
      const problem = api === "openai" ? checkOpenAI(message as Record<string, unknown>) : this.checkAnthropic(message as Record<string, unknown>, i);
      if (problem) return problem;
    }
    return undefined;
  }

  private checkAnthropic(message: Record<string, unknown>, i: number): string | undefined {
    const blocks = Array.isArray(message.content) ? (message.content as Array<Record<string, unknown>>) : [];
    const call = blocks.find((block) => block?.type === "tool_use" && this.issued.has(String(block.id)));
    if (!call) return undefined;
    const expected = this.issued.get(String(call.id))!;
    const first = blocks[0];
    if (first?.type !== "thinking" && first?.type !== "redacted_thinking") {
      return `messages.${i}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${String(first?.type)}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceeding the lastmost set of \`tool_use\` and \`tool_result\` blocks). We recommend you include thinking blocks from previous turns.`;
    }
    if (first.signature !== expected.signature || first.thinking !== expected.thinking) {
      return `messages.${i}.content.0: Invalid \`signature\` in \`thinking\` block`;
    }
    return undefined;
  }
}

function checkOpenAI(message: Record<string, unknown>): string | undefined {
  if (!("reasoning_content" in message)) return undefined;
  // DeepSeek 文档：「如果 messages 中包含 reasoning_content 字段，API 会返回 400 错误」
  return "The reasoning_content is an intermediate result for display purposes only and will not be included in the context for inference. Please remove the reasoning_content from your input.";
}
