/**
 * 整个 Harness 共用的数据形状：消息、上下文、模型流事件、循环事件。
 * 其他文件只引用这里的类型，不各自再定义一份。
 * 字段名尽量与 Pi 保持一致（role、stopReason、toolCall……），方便对照阅读。
 */

// ── 消息里的内容块 ──────────────────────────────────────────────

/** 一段文本。 */
export interface TextContent {
  type: "text";
  text: string;
}

/**
 * 思考模型（DeepSeek-R1、Qwen3、Kimi、开了 extended thinking 的 Claude）在回答之前先吐出的推理。
 * 形状与字段名照 Pi 的 ThinkingContent；thinkingSignature 是 Anthropic 给的签名，带工具调用时要原样送回去。
 */
export interface ThinkingContent {
  type: "thinking";
  thinking: string;
  thinkingSignature?: string;
}

/** 模型发起的一次工具调用。arguments 已经是解析好的对象。 */
export interface ToolCall {
  type: "toolCall";
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}

// ── 三种消息 ────────────────────────────────────────────────────

/** 用户说的一句话。 */
export interface UserMessage {
  role: "user";
  content: string;
}

/** 助手的一条回复：文本与工具调用可以交错出现，最后一定带 stopReason。 */
export interface AssistantMessage {
  role: "assistant";
  content: Array<TextContent | ThinkingContent | ToolCall>;
  stopReason: StopReason;
  /** 只在失败时出现：写给人看的错误原因。 */
  errorMessage?: string;
  /** 真实模型才有：这次调用用了多少 token（FakeModel 不填）。 */
  usage?: Usage;
}

/** token 用量，字段名与 Pi 一致。input 不含命中缓存的部分。 */
export interface Usage {
  input: number;
  output: number;
  /** 从提示词缓存里读出的输入 token。 */
  cacheRead: number;
  /** 这次新写进缓存的输入 token（Anthropic 才有）。 */
  cacheWrite: number;
}

/**
 * 助手消息为什么结束。"aborted" 从 step03 起就在类型里占好了位置，
 * 到 step07 才第一次被用上；"toolUse" 是 step04 加入的：先执行工具，再继续。
 * "length" 是 step08 加入的：真实模型的输出被 token 上限截断了。
 */
export type StopReason = "stop" | "error" | "aborted" | "toolUse" | "length";

/** 一次工具执行的结果，作为一条消息回到上下文里。 */
export interface ToolResultMessage {
  role: "toolResult";
  /** 回答的是哪一次工具调用。 */
  toolCallId: string;
  /** 工具名：渲染与会话文件里不必再回头查那次调用。 */
  toolName: string;
  content: string;
  /** 工具失败时为 true；模型据此知道这不是正常结果。 */
  isError?: boolean;
}

export type Message = UserMessage | AssistantMessage | ToolResultMessage;

// ── 上下文：每次调用模型时交出去的全部东西 ──────────────────────

/** 交给模型的工具说明：名字、用途、参数的 JSON Schema。 */
export interface ToolSpec {
  /** 工具名：模型用它来点名调用。 */
  name: string;
  /** 一句话说明：模型靠它判断什么时候该用这个工具。 */
  description: string;
  /** 参数的 JSON Schema：模型照着它生成 arguments。 */
  parameters: Record<string, unknown>;
}

/** 模型每次看到的是整个上下文，而不是最后一句话。 */
export interface Context {
  /** 系统提示词：告诉模型它是谁、该怎么做。 */
  systemPrompt?: string;
  /** 到目前为止的全部消息，按时间顺序。 */
  messages: Message[];
  /** 模型可以调用的工具；没有工具时省略。 */
  tools?: ToolSpec[];
}

// ── 模型流 ──────────────────────────────────────────────────────

/**
 * 模型流里的事件：若干个 text_delta，最后恰好一个 done。
 * 失败和取消不单独设事件：done 里那条消息的 stopReason 会说明一切。
 */
export type StreamEvent =
  | { type: "text_delta"; delta: string }
  /** 思考模型的推理增量。只显示、不算进回答。 */
  | { type: "thinking_delta"; delta: string }
  | { type: "done"; message: AssistantMessage };

/** 每次调用模型时的选项。 */
export interface StreamOptions {
  /** 取消信号：按下 Ctrl+C 时由 main.ts 触发，一路传到最底层的等待。 */
  signal?: AbortSignal;
  /** 收到了服务器的字节（响应头、正文的任何一块，SSE 注释也算）：模型超时的空闲时钟从头算起（guard.ts 交进来）。 */
  onActivity?: () => void;
}

/**
 * 模型调用抽象。契约：**不允许 throw，错误编码成 error 事件**。
 * FakeModel 与真实 Provider（模型服务提供方）都实现这一个类型。
 */
export type StreamFn = (context: Context, options?: StreamOptions) => AsyncIterable<StreamEvent>;

// ── 循环事件：runAgentLoop 产出、渲染层与扩展消费 ────────────────

export type HarnessEvent =
  /** 新的一轮开始。 */
  | { type: "turn_start"; turn: number }
  /** 模型吐出的一小段文本，原样转发。 */
  | { type: "text_delta"; delta: string }
  /** 模型的一小段推理（思考模型才有），原样转发。 */
  | { type: "thinking_delta"; delta: string }
  /** 一条新消息进了上下文（助手回复或工具结果）。 */
  | { type: "message"; message: AssistantMessage | ToolResultMessage }
  /** 即将执行一个工具。 */
  | { type: "tool_call"; toolCall: ToolCall }
  /** 这一轮正常结束。 */
  | { type: "turn_end"; turn: number }
  /** 这一次回复被取消了。 */
  | { type: "abort" }
  /** 轮数用完，循环被强制停下。 */
  | { type: "max_turns"; maxTurns: number }
  /** 重试层的事件。runAgentLoop 从不产出它们，只有包在外面的 runWithRetry 会。 */
  | RetryEvent;

// ── 重试层事件：runWithRetry 在循环事件之间插入它们 ─────────
// 它们是 HarnessEvent 的一部分，所以渲染、落盘、扩展照旧只认 HarnessEvent 一个类型；
// agent-loop.ts 一个字都不用改——它只是从来不产出这几种。

export type RetryEvent =
  /** 上一次运行以可重试的错误结束：等 delayMs 毫秒后再跑一次。attempt 从 1 数起。 */
  | { type: "auto_retry_start"; attempt: number; maxAttempts: number; delayMs: number; errorMessage: string }
  /**
   * 一段重试结束。success 时 attempt 是成功的那一次；失败时是已经重试过的次数；
   * 被取消时是正在等待或正在进行的那一次（与 Pi 相同），finalError 为 RETRY_CANCELLED。
   */
  | { type: "auto_retry_end"; success: boolean; attempt: number; finalError?: string }
  /** 上下文溢出，省略了最早的 dropped 条消息；willRetry 表示接着重跑这一轮。 */
  | { type: "compaction"; dropped: number; willRetry: boolean }
  /** 溢出了却没法再压缩（没有可省略的，或者已经压缩重试过一次）：这次回复到此为止。 */
  | { type: "compaction_failed"; errorMessage: string };
