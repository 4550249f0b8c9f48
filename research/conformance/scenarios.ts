/**
 * 对照场景：同一份剧本，先交给真实的 Pi 1.6.0，再交给实验 step09，各自跑一遍；
 * 两种协议（OpenAI Chat Completions、Anthropic Messages）各跑一次。
 *
 * 取消从不按毫秒数：要么等第一段文字到达（服务器发完这一段就不再出声），要么等第一个工具结果，
 * 要么等工具自己报告「开始了」。
 */
import type { RecordedRequest, Turn } from "./lab.ts";

export type Api = "openai" | "anthropic";
export const APIS: Api[] = ["openai", "anthropic"];

/** 什么时候按下取消。 */
export type CancelPoint =
  /** 第一段文字到达时（服务器发完它就挂起，所以到达的正好是这一段）。 */
  | "first-text"
  /** 第一条工具结果进入历史时。 */
  | "first-tool-result"
  /** wait 工具报告自己开始执行时。 */
  | "tool-started";

export interface Scenario {
  id: string;
  /**
   * loop：只涉及循环与工具，Pi 那边用 pi-agent-core 的 Agent（Node 20 即可）；
   * session：涉及重试、压缩，Pi 那边要 pi-coding-agent 的 AgentSession（Node ≥ 22.19，在子进程里跑）。
   */
  layer: "loop" | "session";
  /** 表格里的名字。 */
  title: string;
  /** 哪些章节关心这一行。 */
  chapters: string[];
  /** 用户说的话。 */
  prompt: string;
  /** 服务器依次回答的每个请求（事件个数与错误正文随协议不同）；也可以按请求的内容现算。 */
  script: (api: Api) => Turn[] | ((request: RecordedRequest, index: number) => Turn);
  cancel?: CancelPoint;
  /** 思考模型：两边的模型都标成会思考，Pi 的 thinkingLevel 设为 medium（默认 off 时它不请求思考）。 */
  thinking?: boolean;
  /** 用户这句话之前已经有的对话（溢出场景要有可以压缩的早先消息）。 */
  earlier?: Array<{ question: string; answer: string }>;
}

/** 两个工具调用（同一批）。 */
const TWO_CALCS = [
  { id: "call_1", name: "calc", arguments: { expression: "1+2" } },
  { id: "call_2", name: "calc", arguments: { expression: "3*4" } },
];

/**
 * 发到第一片文字为止的事件个数（文字两字一片）：
 * OpenAI 是注释、role、第一片文字；Anthropic 是 message_start、ping、content_block_start、第一片文字。
 */
const FIRST_TEXT_CHUNK: Record<Api, number> = { openai: 3, anthropic: 4 };

const QUOTA_MESSAGE = "You exceeded your current quota, please check your plan and billing details.";

export const SCENARIOS: Scenario[] = [
  {
    id: "cancel-while-streaming",
    layer: "loop",
    title: "文字流到一半时取消",
    chapters: ["5.6", "8.5"],
    prompt: "讲个长故事",
    script: (api) => [{ text: "从前有座山，山里有座庙。", hangAfterChunks: FIRST_TEXT_CHUNK[api] }],
    cancel: "first-text",
  },
  {
    id: "cancel-between-tools",
    layer: "loop",
    title: "同一批两个工具调用之间取消",
    chapters: ["5.6", "8.5"],
    prompt: "算两道题",
    script: () => [{ text: "我来算。", toolCalls: TWO_CALCS }, { text: "不该走到这里" }],
    cancel: "first-tool-result",
  },
  {
    id: "cancel-during-tool",
    layer: "loop",
    title: "工具执行中取消",
    chapters: ["5.6", "8.5", "8.6"],
    prompt: "等一等",
    script: () => [{ toolCalls: [{ id: "call_1", name: "wait", arguments: { label: "第一个" } }] }, { text: "不该走到这里" }],
    cancel: "tool-started",
  },
  {
    id: "tool-throws",
    layer: "loop",
    title: "工具抛出异常",
    chapters: ["8.5"],
    prompt: "试试会炸的工具",
    script: () => [{ toolCalls: [{ id: "call_1", name: "boom", arguments: {} }] }, { text: "工具出错了，我换个办法。" }],
  },
  {
    id: "unknown-tool",
    layer: "loop",
    title: "调用不存在的工具",
    chapters: ["8.5"],
    prompt: "调一个没有的工具",
    script: () => [{ toolCalls: [{ id: "call_1", name: "nope", arguments: {} }] }, { text: "没有这个工具。" }],
  },
  {
    id: "invalid-arguments",
    layer: "loop",
    title: "参数不合校验",
    chapters: ["8.5"],
    prompt: "参数写错",
    script: () => [{ toolCalls: [{ id: "call_1", name: "calc", arguments: { expr: "1+2" } }] }, { text: "参数错了。" }],
  },
  {
    id: "thinking-tool-call",
    layer: "loop",
    title: "思考模型先想、再调工具，下一轮送回思考",
    chapters: ["8.6"],
    prompt: "想一想再算",
    thinking: true,
    // 服务器发过推理之后会检查下一轮请求：Anthropic 要原样送回带签名的思考块，DeepSeek 思考模式要带回调过工具那条消息的 reasoning_content
    script: () => [
      { thinking: "先想一想：要算 1+2。", toolCalls: [{ id: "call_1", name: "calc", arguments: { expression: "1+2" } }] },
      { thinking: "结果出来了。", text: "等于 3。" },
    ],
  },
  {
    id: "rate-limit-retry-after-ms",
    layer: "session",
    title: "429 带 retry-after-ms",
    chapters: ["8.7"],
    prompt: "你好",
    script: () => [{ httpError: 429, headers: { "retry-after-ms": "1" } }, { text: "你好！" }],
  },
  {
    id: "server-error-twice",
    layer: "session",
    title: "500 两次后成功",
    chapters: ["8.7"],
    prompt: "你好",
    script: () => [{ httpError: 500 }, { httpError: 500 }, { text: "你好！" }],
  },
  {
    id: "insufficient-quota",
    layer: "session",
    title: "额度用完（insufficient_quota）",
    chapters: ["8.7"],
    prompt: "你好",
    script: (api) => [
      // OpenAI 的真实正文；Anthropic 没有这种错误类型，用同样的说明放进它的错误形状
      api === "openai"
        ? { httpError: 429, body: { error: { message: QUOTA_MESSAGE, type: "insufficient_quota", code: "insufficient_quota" } } }
        : { httpError: 429, message: `insufficient_quota: ${QUOTA_MESSAGE}` },
      { text: "不该走到这里" },
    ],
  },
  {
    id: "context-overflow",
    layer: "session",
    title: "上下文溢出",
    chapters: ["8.7"],
    prompt: "再来一个问题",
    // 早先的对话要足够长，Pi 才有东西可压：它保留最近约 20 000 token，只摘要更早的部分
    earlier: [1, 2, 3].map((n) => ({ question: `早先的问题 ${n}`, answer: `早先的回答 ${n}：${"很长的内容。".repeat(6000)}` })),
    // 第一个请求溢出；Pi 压缩时请模型写摘要（请求里带着它的摘要提示词），之后的请求正常回答
    script: () => (request, index) =>
      index === 0
        ? { httpError: 400, message: "This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens." }
        : JSON.stringify(request.body).includes("context summarization assistant")
          ? { text: "（摘要）早先问过三个问题。" }
          : { text: "压缩之后的回答" },
  },
  {
    id: "stream-cut",
    layer: "session",
    title: "回复流到一半连接被掐断",
    chapters: ["8.7"],
    prompt: "你好",
    script: (api) => [{ text: "这句话说不完", dropAfterChunks: FIRST_TEXT_CHUNK[api] + 1 }, { text: "重新说一遍。" }],
  },
  {
    id: "length-stop",
    layer: "session",
    title: "length 停止（输出用满上限）",
    chapters: ["8.7"],
    prompt: "写长一点",
    // 输出用满了上限：output 等于模型的 maxTokens（见 MODEL_MAX_TOKENS）
    script: () => [{ text: "写到这里就", stopReason: "length", usage: { output: 1000 } }, { text: "不该走到这里" }],
  },
  {
    id: "length-stop-short",
    layer: "session",
    title: "length 停止（输出没用满上限）",
    chapters: ["8.7"],
    prompt: "写长一点",
    // 只输出了 5 个 token 就因 length 停下：上限比模型的 maxTokens 小（例如服务端另有限制）
    script: () => [{ text: "写到这里就", stopReason: "length" }, { text: "不该走到这里" }],
  },
];

/** 两边的模型都用这一组数字。 */
export const MODEL_CONTEXT_WINDOW = 128_000;
export const MODEL_MAX_TOKENS = 1000;
