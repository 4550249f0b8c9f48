/**
 * 边收边拼一条助手回复。两个适配器共用它，所以无论在哪个环节结束，
 * 交出去的消息都长一个样：文本与工具调用按到达顺序排列，失败时带着已经收到的部分。
 */
import { tooDeep } from "../guards/json.js";
import { describeError } from "../guards/shown.js";
import type { AssistantMessage, StopReason, StreamEvent, TextContent, ThinkingContent, ToolCall, Usage } from "../types.js";
import { redactSecrets } from "./guards/settings.js";
import { checkReplySize } from "./guards/stream.js";

/** 要立刻显示给用户的一小段：回答的文字，或思考模型的推理。 */
export type Delta = Extract<StreamEvent, { type: "text_delta" | "thinking_delta" }>;

/** 还在接收参数的工具调用：arguments 以 JSON 碎片的形式一段段到达。 */
export interface ToolDraft {
  type: "toolDraft";
  id: string;
  name: string;
  json: string;
}

export class ReplyBuilder {
  private readonly blocks: Array<TextContent | ThinkingContent | ToolDraft> = [];
  private readonly drafts = new Map<string, ToolDraft>();
  usage: Usage | undefined;
  /** 收到了、还没交给调用方显示的增量。 */
  private pending: Delta[] = [];
  /** 文字、推理与工具参数一共收了多少字符。 */
  private size = 0;

  /** secrets：密钥与地址查询串里的秘密，最后产出的 errorMessage 里不许出现它们。 */
  constructor(private readonly secrets: readonly string[]) {}

  /** 收到一段回答。 */
  text(delta: string): void {
    if (delta === "") return;
    this.size = checkReplySize(this.size + delta.length);
    const last = this.blocks.at(-1);
    if (last?.type === "text") last.text += delta;
    else this.blocks.push({ type: "text", text: delta });
    this.pending.push({ type: "text_delta", delta });
  }

  /** 收到一段推理；签名（Anthropic 才有）跟着它所在的思考块。 */
  thinking(delta: string, signature = ""): void {
    this.size = checkReplySize(this.size + delta.length + signature.length);
    const last = this.blocks.at(-1);
    if (last?.type === "thinking") last.thinking += delta;
    else this.blocks.push({ type: "thinking", thinking: delta });
    const block = this.blocks.at(-1) as ThinkingContent;
    if (signature) block.thinkingSignature = (block.thinkingSignature ?? "") + signature;
    if (delta !== "") this.pending.push({ type: "thinking_delta", delta });
  }

  /** 取走攒下的增量，按到达顺序。 */
  takeDeltas(): Delta[] {
    const out = this.pending;
    this.pending = [];
    return out;
  }

  /**
   * 按协议给的键（OpenAI 的 index、Anthropic 的块序号）找到或新建一个工具调用。
   * 同一个键来了另一个 id：那是新的调用（有的服务器把并行的调用都放在 index 0），不能拼进上一个。
   */
  tool(key: string, id?: string | null): ToolDraft {
    let draft = this.drafts.get(key);
    if (!draft || (id && draft.id && draft.id !== id)) {
      draft = { type: "toolDraft", id: "", name: "", json: "" };
      this.drafts.set(key, draft);
      this.blocks.push(draft);
    }
    draft.id ||= id ?? ""; // id 通常只在第一片里
    return draft;
  }

  /** 收到一段工具参数（JSON 碎片）。 */
  toolArgs(draft: ToolDraft, json: string): void {
    this.size = checkReplySize(this.size + json.length);
    draft.json += json;
  }

  findTool(key: string): ToolDraft | undefined {
    return this.drafts.get(key);
  }

  /** 收尾：把草稿变成正式的 AssistantMessage。 */
  finish(stopReason: StopReason, errorMessage?: string): AssistantMessage {
    let reason = stopReason;
    let error = errorMessage;
    const settled = reason !== "error" && reason !== "aborted";
    const content: AssistantMessage["content"] = [];
    for (const block of this.blocks) {
      if (block.type !== "toolDraft") {
        content.push({ ...block });
        continue;
      }
      // length：输出被 max_tokens 截断，参数很可能只有半截。同 Pi，一个调用都不执行：干脆不交出去
      if (reason === "length") continue;
      const args = parseArguments(block.json, settled);
      if (typeof args === "object") {
        content.push({ type: "toolCall", id: block.id, name: block.name, arguments: args });
      } else if (settled) {
        // 模型说自己说完了，参数却拼不成 JSON：这一轮没法执行，按错误处理
        reason = "error";
        error = `工具 ${block.name} 的参数不是合法的 JSON：${args}`;
      }
      // 出错或取消时，半截 JSON 当不了参数，只好丢掉这个调用（截断时已在上面整个跳过）
    }
    // 有的兼容服务器带着工具调用却报 finish_reason "stop"；不改的话这些调用永远不会执行
    if (reason === "stop" && content.some((block) => block.type === "toolCall")) reason = "toolUse";
    const message: AssistantMessage = { role: "assistant", content, stopReason: reason };
    if (error !== undefined) message.errorMessage = redactSecrets(error, this.secrets);
    if (this.usage) message.usage = { ...this.usage };
    return message;
  }
}

/** 返回解析好的参数对象，或一句失败原因。 */
function parseArguments(json: string, settled: boolean): Record<string, unknown> | string {
  // 没有参数的工具，模型常常一个字符都不发；但流被打断时，空串只说明参数还没来
  if (json.trim() === "") return settled ? {} : "参数还没收完";
  try {
    const value: unknown = JSON.parse(json);
    if (typeof value === "object" && value !== null && !Array.isArray(value)) return tooDeep(value) ?? (value as Record<string, unknown>);
    return "参数必须是一个 JSON 对象";
  } catch (error) {
    return describeError(error); // 扩展换掉了 JSON.parse 时，抛出的可能是任何值
  }
}

