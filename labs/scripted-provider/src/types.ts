/**
 * 服务器自己用的数据形状。
 *
 * 它不引用任何步骤的 types.ts：步骤一份份复制，服务器只有这一份。
 * 这里的消息是步骤里 Message 的「子集」——字段名相同、少几个可选字段——
 * 所以步骤的剧本函数（例如 step08 的 decideReply）可以直接收下这里还原出的上下文。
 */

/** token 用量，字段名与步骤里（也与 Pi）一致。 */
export interface Usage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

export interface TextContent {
  type: "text";
  text: string;
}

export interface ToolCall {
  type: "toolCall";
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}

export interface UserMessage {
  role: "user";
  content: string;
}

/** 从请求体还原出来的助手消息：只分得出「说完了」和「要调工具」。 */
export interface AssistantMessage {
  role: "assistant";
  content: Array<TextContent | ToolCall>;
  stopReason: "stop" | "toolUse";
}

export interface ToolResultMessage {
  role: "toolResult";
  toolCallId: string;
  toolName: string;
  content: string;
  isError?: boolean;
}

export type Message = UserMessage | AssistantMessage | ToolResultMessage;

/** 剧本函数看到的上下文：只有消息（请求里的工具说明、系统提示词，剧本用不上）。 */
export interface Context {
  messages: Message[];
}

/** 剧本对一个请求的回答：说什么、调哪些工具；带 error 表示说完之后在流里报错。 */
export interface Answer {
  text: string;
  toolCalls: Array<{ id: string; name: string; arguments: Record<string, unknown> }>;
  error?: string;
}

/** 剧本：看上下文，给回答。步骤里就是 fake-model.ts 的 decideReply。 */
export type Answerer = (context: Context) => Answer;
