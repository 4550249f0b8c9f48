/**
 * 协议检查：真实服务会拒收的第二轮请求，这里也拒收（HTTP 400，正文照真实服务）。
 * 只查思考模型的两条规矩，因为客户端最容易在这里出错：
 *   - Anthropic：开着思考又调了工具，下一轮的助手消息必须以那个思考块开头，签名原样送回；
 *   - DeepSeek 的思考模式（OpenAI 兼容）：调过工具的那条助手消息必须带着 reasoning_content 回来
 *     （api-docs.deepseek.com/guides/thinking_mode 的「工具调用」一节）；没调工具的带不带都行。
 * 服务器发过推理的工具调用记在这里；没发过的对话一概不查。
 */
import { createHash } from "node:crypto";
import { DEEPSEEK_REASONING_MISSING } from "./profiles.js";
import type { Api } from "./provider-server.js";

/** 思考块的签名：由内容算出，确定、可复现（真实服务的签名是加密的，这里只求「对不上就能发现」）。 */
export function signatureOf(thinking: string): string {
  return `EqQBCkgIARABGAIiQ${createHash("sha256").update(thinking).digest("base64url").slice(0, 40)}`;
}

export class ThinkingLedger {
  /** Anthropic：工具调用 id → 与它同一条回复里的思考块。 */
  private readonly issued = new Map<string, { thinking: string; signature: string }>();
  /** OpenAI 兼容（DeepSeek 的规矩）：带着推理发出的工具调用 id。 */
  private readonly reasoned = new Set<string>();

  /** 服务器发出了一条带推理的回复，里面有这些工具调用。 */
  issue(api: Api, toolIds: readonly string[], thinking: string): void {
    for (const id of toolIds) {
      if (api === "anthropic") this.issued.set(id, { thinking, signature: signatureOf(thinking) });
      else this.reasoned.add(id);
    }
  }

  /** 检查一个请求体；违反协议时返回真实服务会回的那份 400 正文，否则 undefined。 */
  check(api: Api, body: unknown): object | undefined {
    const messages = (typeof body === "object" && body !== null ? (body as { messages?: unknown }).messages : undefined) ?? [];
    if (!Array.isArray(messages)) return undefined;
    for (const [i, message] of messages.entries()) {
      if (typeof message !== "object" || message === null || (message as { role?: unknown }).role !== "assistant") continue;
      if (api === "openai" && this.missingReasoning(message as Record<string, unknown>)) return DEEPSEEK_REASONING_MISSING;
      const problem = api === "anthropic" ? this.checkAnthropic(message as Record<string, unknown>, i) : undefined;
      if (problem) return { type: "error", error: { type: "invalid_request_error", message: problem } };
    }
    return undefined;
  }

  /** 调过（带着推理发出的）工具的助手消息，有没有带回 reasoning_content。DeepSeek 只查有没有，空串也算带了。 */
  private missingReasoning(message: Record<string, unknown>): boolean {
    const calls = Array.isArray(message.tool_calls) ? (message.tool_calls as Array<Record<string, unknown> | null>) : [];
    if (!calls.some((call) => this.reasoned.has(String(call?.id)))) return false;
    return typeof message.reasoning_content !== "string";
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
