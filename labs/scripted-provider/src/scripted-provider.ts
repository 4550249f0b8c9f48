/**
 * 让服务器「按剧本」回答：每来一个请求，现算一个回复。
 *
 * 服务器收到的是一份请求体（OpenAI 或 Anthropic 格式），不是步骤里的 Context。
 * 这里把请求体还原成够用的 Context，交给步骤的剧本函数（step08/09 里是 fake-model.ts 的
 * decideReply，按 rules.ts 挑规则），再把回答交给 provider-server.ts 按协议编成 SSE。
 * 于是 step07 的那些对话，原封不动地走了一遍真实的 HTTP：请求构造、SSE 解析、取消时断开连接，一样不少。
 */

import type { RecordedRequest, ScriptedReply, Turn } from "./provider-server.js";
import type { Answerer, AssistantMessage, Context, Message, ToolResultMessage } from "./types.js";

/** 故障：直接回 HTTP 错误、挂起、重定向、不是事件流的 200，或者给正常回复加点毛病（掐断、不再出声、流中报错、先发推理……）。 */
export type Fault =
  | Extract<Turn, { httpError: number }>
  | Extract<Turn, { hang: true }>
  | Extract<Turn, { redirect: number }>
  | Extract<Turn, { notStream: string }>
  | Partial<ScriptedReply>;

export interface ScriptedProviderOptions {
  /** 剧本：看上下文，给回答。 */
  answer: Answerer;
  /** 相邻两个 SSE 事件之间等多久（毫秒）；交互时给 40，像 step07 的假模型一样一段段吐字。 */
  chunkDelayMs?: number;
  /** 第 index 个请求（从 0 数）要不要出点毛病；返回 undefined 就正常回答。 */
  fault?: (index: number) => Fault | undefined;
  /** 从哪里读 SCRIPTED_PROVIDER_CHUNK_DELAY_MS：默认本进程的环境变量；在测试进程里跑的 CLI 给它自己的那份 */
  env?: NodeJS.ProcessEnv;
}

/** 造一个给 startProviderServer 用的脚本函数：每个请求都按剧本现算回复。 */
export function scriptedProvider(options: ScriptedProviderOptions): (request: RecordedRequest, index: number) => Turn {
  const { answer, fault } = options;
  const chunkDelayMs = pacingFromEnv(options.env) ?? options.chunkDelayMs ?? 0;
  return (request, index) => {
    const injected = fault?.(index);
    if (injected && ("httpError" in injected || "hang" in injected || "redirect" in injected || "notStream" in injected)) return injected;
    return { ...replyTo(request, answer), chunkDelayMs, ...injected };
  };
}

/**
 * 环境变量 SCRIPTED_PROVIDER_CHUNK_DELAY_MS（非负整数）替掉 chunkDelayMs。给 CLI 测试用：
 * 它们把整段输入一次写进标准输入，吐字的节奏不改变任何输出，却让每次对话多等几秒（一轮几十段 × 40ms）。
 * 只改快慢，不改内容；要在吐字途中按 Ctrl+C 的测试不设它。
 */
function pacingFromEnv(env: NodeJS.ProcessEnv = process.env): number | undefined {
  const value = env.SCRIPTED_PROVIDER_CHUNK_DELAY_MS;
  return value !== undefined && /^\d+$/.test(value) ? Number(value) : undefined;
}

/** 按剧本回答一个请求。 */
export function replyTo(request: RecordedRequest, answer: Answerer): ScriptedReply {
  let reply: ReturnType<Answerer>;
  try {
    reply = answer(contextFromRequest(request));
  } catch (error) {
    return { streamError: { type: "api_error", message: `剧本规则出错：${error instanceof Error ? error.message : String(error)}` } };
  }
  // 剧本里的 error 和步骤的假模型一样处理：话照说，工具不调，最后在流里报错
  if (reply.error) return { text: reply.text, streamError: { type: "api_error", message: reply.error } };
  return { text: reply.text, toolCalls: reply.toolCalls.map(({ id, name, arguments: args }) => ({ id, name, arguments: args })) };
}

// ── 请求体 → Context：规则只看消息，所以只还原消息 ─────────────────

/** 请求体里我们关心的字段；全部当作不可信的输入逐个检查。 */
interface WireMessage {
  role?: unknown;
  content?: unknown;
  tool_calls?: unknown;
  tool_call_id?: unknown;
}

export function contextFromRequest(request: RecordedRequest): Context {
  const body = (isObject(request.body) ? request.body : {}) as { messages?: unknown };
  const wire = (Array.isArray(body.messages) ? body.messages : []).filter(isObject) as WireMessage[];
  // 工具结果只带调用编号；规则要的是工具名（toolResult:calc），得回头从那次调用里找
  const names = new Map<string, string>();
  const messages = request.api === "anthropic" ? fromAnthropic(wire, names) : fromOpenAI(wire, names);
  return { messages };
}

function fromOpenAI(wire: WireMessage[], names: Map<string, string>): Message[] {
  const messages: Message[] = [];
  for (const item of wire) {
    if (item.role === "user") messages.push({ role: "user", content: textOf(item.content) });
    if (item.role === "assistant") {
      const content: AssistantMessage["content"] = [];
      if (textOf(item.content)) content.push({ type: "text", text: textOf(item.content) });
      for (const call of (Array.isArray(item.tool_calls) ? item.tool_calls : []).filter(isObject)) {
        const fn = (isObject(call.function) ? call.function : {}) as { name?: unknown; arguments?: unknown };
        const id = String(call.id ?? "");
        names.set(id, String(fn.name ?? ""));
        content.push({ type: "toolCall", id, name: String(fn.name ?? ""), arguments: parseObject(fn.arguments) });
      }
      messages.push(assistant(content));
    }
    if (item.role === "tool") {
      // Chat Completions 的 tool 消息没有 is_error 字段（Anthropic 有）：真实模型读内容自己判断，
      // 剧本模型只好照我们工具的报错措辞去猜
      const text = textOf(item.content);
      messages.push(toolResult(String(item.tool_call_id ?? ""), text, looksLikeError(text), names));
    }
  }
  return messages;
}

function fromAnthropic(wire: WireMessage[], names: Map<string, string>): Message[] {
  const messages: Message[] = [];
  for (const item of wire) {
    const raw: unknown[] = typeof item.content === "string" ? [{ type: "text", text: item.content }] : Array.isArray(item.content) ? item.content : [];
    const blocks = raw.filter(isObject);
    if (item.role === "assistant") {
      const content: AssistantMessage["content"] = [];
      for (const block of blocks) {
        if (block.type === "text") content.push({ type: "text", text: String(block.text ?? "") });
        if (block.type === "tool_use") {
          const id = String(block.id ?? "");
          names.set(id, String(block.name ?? ""));
          content.push({ type: "toolCall", id, name: String(block.name ?? ""), arguments: isObject(block.input) ? block.input : {} });
        }
      }
      messages.push(assistant(content));
      continue;
    }
    // Anthropic 没有「工具」角色：工具结果是 user 消息里的 tool_result 块
    let text = "";
    for (const block of blocks) {
      if (block.type === "text") text += String(block.text ?? "");
      if (block.type === "tool_result") {
        messages.push(toolResult(String(block.tool_use_id ?? ""), textOf(block.content), block.is_error === true, names));
      }
    }
    if (text) messages.push({ role: "user", content: text });
  }
  return messages;
}

// ── 小工具 ─────────────────────────────────────────────────────

function assistant(content: AssistantMessage["content"]): AssistantMessage {
  return { role: "assistant", content, stopReason: content.some((part) => part.type === "toolCall") ? "toolUse" : "stop" };
}

function toolResult(toolCallId: string, content: string, isError: boolean, names: Map<string, string>): ToolResultMessage {
  const result: ToolResultMessage = { role: "toolResult", toolCallId, toolName: names.get(toolCallId) ?? "", content };
  if (isError) result.isError = true;
  return result;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** 内容可以是字符串、null，或一串 {type:"text"} 块（两种协议都允许）。 */
function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.filter(isObject).map((part) => (part.type === "text" ? String(part.text ?? "") : "")).join("");
}

function parseObject(json: unknown): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(String(json ?? ""));
    return isObject(value) ? value : {};
  } catch {
    return {};
  }
}

/**
 * 步骤里的工具（tools/types.ts、read-file.ts）与补齐的结果报错时的开头或结尾。
 * step09 的超时与取消也在内：一份清单覆盖 step08 与 step09。
 */
const ERROR_TEXT = new RegExp(
  "^(未注册的工具|参数不合法|工具 \\S+ (出错|执行超时|被取消)|No result provided" + // tools/types.ts 与 transform-messages.ts
    "|路径不能为空|不能使用绝对路径|不能读取项目目录之外|文件不存在|没有权限读取|符号链接绕成了环|无法读取|文件太大|读取被取消)" + // read-file.ts
    "|(是一个目录|不是普通文件)$",
);

function looksLikeError(text: string): boolean {
  return ERROR_TEXT.test(text);
}
