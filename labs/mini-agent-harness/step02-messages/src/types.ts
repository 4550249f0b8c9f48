/**
 * 整个 Harness 共用的数据形状：消息与上下文。
 * 其他文件只引用这里的类型，不各自再定义一份。
 * 字段名尽量与 Pi 保持一致（role、content……），方便对照阅读。
 */

// ── 消息里的内容块 ──────────────────────────────────────────────

/** 一段文本。 */
export interface TextContent {
  type: "text";
  text: string;
}

// ── 两种消息 ────────────────────────────────────────────────────

/** 用户说的一句话。 */
export interface UserMessage {
  role: "user";
  content: string;
}

/** 助手的一条回复。content 是内容块的数组：以后还会有工具调用等别的块。 */
export interface AssistantMessage {
  role: "assistant";
  content: TextContent[];
}

export type Message = UserMessage | AssistantMessage;

// ── 上下文：每次调用模型时交出去的全部东西 ──────────────────────

/** 模型每次看到的是整个上下文，而不是最后一句话。 */
export interface Context {
  /** 系统提示词：告诉模型它是谁、该怎么做。 */
  systemPrompt?: string;
  /** 到目前为止的全部消息，按时间顺序。 */
  messages: Message[];
}

// ── 模型 ────────────────────────────────────────────────────────

/** 模型：拿到整个上下文，给出一条助手消息。step03 会把它换成流式的 StreamFn。 */
export type CompleteFn = (context: Context) => AssistantMessage;
