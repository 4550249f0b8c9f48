/**
 * 整个 Harness 共用的数据形状：消息、上下文、模型流事件。
 * 其他文件只引用这里的类型，不各自再定义一份。
 * 字段名尽量与 Pi 保持一致（role、content、stopReason……），方便对照阅读。
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

/** 助手的一条回复：最后一定带 stopReason。 */
export interface AssistantMessage {
  role: "assistant";
  content: TextContent[];
  stopReason: StopReason;
  /** 只在失败时出现：写给人看的错误原因。 */
  errorMessage?: string;
}

/**
 * 助手消息为什么结束。"aborted" 现在就在类型里占好了位置，
 * 到 step07 才第一次被用上；先在类型里占位，用到它的代码就不必再改类型。
 */
export type StopReason = "stop" | "error" | "aborted";

export type Message = UserMessage | AssistantMessage;

// ── 上下文：每次调用模型时交出去的全部东西 ──────────────────────

/** 模型每次看到的是整个上下文，而不是最后一句话。 */
export interface Context {
  /** 系统提示词：告诉模型它是谁、该怎么做。 */
  systemPrompt?: string;
  /** 到目前为止的全部消息，按时间顺序。 */
  messages: Message[];
}

// ── 模型流 ──────────────────────────────────────────────────────

/**
 * 模型流里的事件：若干个 text_delta，最后恰好一个 done。
 * 失败和取消不单独设事件：done 里那条消息的 stopReason 会说明一切。
 */
export type StreamEvent =
  | { type: "text_delta"; delta: string }
  | { type: "done"; message: AssistantMessage };

/** 每次调用模型时的选项。现在还是空的：step07 会在这里加上取消信号。 */
export interface StreamOptions {}

/**
 * 模型调用抽象。契约：**不允许 throw，错误编码成 error 事件**。
 * FakeModel 与真实 Provider（模型服务提供方）都实现这一个类型。
 */
export type StreamFn = (context: Context, options?: StreamOptions) => AsyncIterable<StreamEvent>;
