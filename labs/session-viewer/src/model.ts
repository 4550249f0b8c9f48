/**
 * 把加载好的条目整理成页面要画的东西：每条在不在链上、为什么不在、
 * 工具调用配上它的结果、失败消息按 step09 的规则分诊、页头的计数。
 * 页面本身（page.js）只负责画，不再做判断。
 */
import { classifyAssistantError } from "../../mini-agent-harness/step09-retry-timeout/src/retry/classify.ts";
import { compactMessages } from "../../mini-agent-harness/step09-retry-timeout/src/retry/compaction.ts";
import type { AssistantMessage, Message } from "../../mini-agent-harness/step09-retry-timeout/src/types.ts";
import type { RawLine } from "./load.ts";

/** 为什么这一条不进运行时的上下文。 */
export type OffReason = "branch" | "unknown-type" | "retried" | "retry-cancelled" | "compacted";

export const OFF_REASON_TEXT: Record<OffReason, string> = {
  branch: "不在链上：从最后一条沿 parentId 往回走，走不到它",
  "unknown-type": "不认识的条目类型：留在链上占着编号，但不会变成消息",
  retried: "重试时移出了运行时上下文：历史里有，请求里没有",
  "retry-cancelled": "可重试的失败：等待重试之前就移出了运行时上下文，随后的重试被取消了（或没能发出）",
  compacted: "上下文溢出后被压缩省略：会话文件里还在，请求里没有",
};

/** step09 的分诊结论（只给出错的消息）。 */
export type ErrorClassLabel = "overflow" | "retryable" | "neither";

export interface ViewEntry {
  /** 按文件顺序从 0 数。 */
  n: number;
  line: number;
  id: string;
  parentId: string | null;
  type: string;
  /** type 为 message 时的消息，原样（形状不可信，页面要防着画）。 */
  message?: unknown;
  /** 不认识的条目：整行原样，页面显示成 JSON。 */
  raw?: unknown;
  /** 在不在从最后一条沿 parentId 往回走的链上。 */
  onChain: boolean;
  off?: { reason: OffReason; text: string };
  errorClass?: ErrorClassLabel;
  /** steps 08+：出错或被取消的助手消息在构造请求时被跳过。 */
  skippedInRequest?: boolean;
  /** 这条溢出之后做了压缩：省略了几条。 */
  compactedBefore?: number;
  /** 助手消息：工具调用 id → 结果所在条目的 n。 */
  results?: Record<string, number>;
  /** 工具结果：对应的调用所在条目的 n。 */
  callEntry?: number;
}

export interface ViewCounts {
  entries: number;
  messages: number;
  user: number;
  turns: number;
  aborted: number;
  errors: number;
  toolCalls: number;
  offChain: number;
}

export interface ViewModel {
  name: string;
  step: string;
  warnings: string[];
  counts: ViewCounts;
  entries: ViewEntry[];
}

export interface BuildOptions {
  name: string;
  /** 用哪个步骤的规则读的，例如 step09-retry-timeout。 */
  step: string;
  stepNumber: number;
  warnings: string[];
}

export function buildModel(lines: RawLine[], options: BuildOptions): ViewModel {
  const entries: ViewEntry[] = lines.map(({ line, entry }, n) => {
    const type = typeof entry.type === "string" ? entry.type : String(entry.type);
    const view: ViewEntry = {
      n,
      line,
      id: String(entry.id),
      parentId: typeof entry.parentId === "string" ? entry.parentId : null,
      type,
      onChain: false,
    };
    if (type === "message") view.message = entry.message;
    else view.raw = entry;
    return view;
  });

  const chain = markChain(entries);
  for (const entry of chain) {
    if (entry.type !== "message") entry.off = off("unknown-type");
  }
  for (const entry of entries) if (!entry.onChain) entry.off = off("branch");

  for (const entry of entries) {
    const message = assistantOf(entry);
    if (!message) continue;
    if (message.stopReason === "error") {
      const verdict = classifyAssistantError(message);
      entry.errorClass = verdict === "overflow" ? "overflow" : verdict === "retryable" ? "retryable" : "neither";
    }
    if (options.stepNumber >= 8 && (message.stopReason === "error" || message.stopReason === "aborted")) entry.skippedInRequest = true;
  }
  if (options.stepNumber >= 9) replayRetries(chain.filter((entry) => entry.type === "message"));
  pairToolCalls(entries);

  return { name: options.name, step: options.step, warnings: options.warnings, counts: count(entries), entries };
}

const off = (reason: OffReason) => ({ reason, text: OFF_REASON_TEXT[reason] });

/** 和步骤的 walkBack 一样：从最后一条沿 parentId 走回根（加载函数已经排除了环与断链）。 */
function markChain(entries: ViewEntry[]): ViewEntry[] {
  const byId = new Map(entries.map((entry) => [entry.id, entry]));
  const chain: ViewEntry[] = [];
  let current = entries.at(-1);
  while (current && !current.onChain) {
    current.onChain = true;
    chain.push(current);
    current = current.parentId === null ? undefined : byId.get(current.parentId);
  }
  return chain.reverse();
}

function assistantOf(entry: ViewEntry): AssistantMessage | undefined {
  const message = entry.message as Partial<AssistantMessage> | undefined;
  if (entry.type !== "message" || !message || message.role !== "assistant") return undefined;
  return { ...message, content: Array.isArray(message.content) ? message.content : [] } as AssistantMessage;
}

/**
 * step09 的 回合层重试只改运行时上下文，文件里每条都在。这里按链重放一遍 runWithRetry 做过的事：
 *   - 出错的助手消息后面紧跟着另一条助手消息：那次失败被重试了，失败消息移出上下文；
 *     若它是溢出，再用 step09 的 compactMessages 压缩（被省略的标成 compacted）；
 *   - 可重试的失败后面没有重跑，且它不是一串重试的最后一次（那是次数用完，会留下）：
 *     runWithRetry 在等待之前就把它移出了上下文，随后的等待被取消（演示的场景 4）。
 *     这里按默认的重试次数推断；用 --retries 0 跑出来的会话会被误标。
 */
function replayRetries(chain: ViewEntry[]): void {
  /** 运行时上下文：文件里的条目，加上压缩留下的说明（没有 entry：文件里没有它）。 */
  let runtime: Array<{ entry?: ViewEntry; message: Message }> = [];
  chain.forEach((entry, index) => {
    runtime.push({ entry, message: entry.message as Message });
    const message = assistantOf(entry);
    if (!message || message.stopReason !== "error") return;
    const next = chain[index + 1]?.message as Partial<Message> | undefined;
    const endsRetries = chain[index - 1]?.off?.reason === "retried";
    if (next?.role !== "assistant") {
      if (entry.errorClass === "retryable" && !endsRetries) {
        runtime.pop();
        entry.off = off("retry-cancelled");
      }
      return;
    }
    runtime.pop();
    entry.off = off("retried");
    if (entry.errorClass !== "overflow") return;
    const result = compactMessages(runtime.map((item) => item.message));
    if (result.dropped === 0) return;
    const kept = result.messages.length - 1; // 去掉开头那条说明
    for (const item of runtime.slice(0, runtime.length - kept)) if (item.entry) item.entry.off = off("compacted");
    entry.compactedBefore = result.dropped;
    runtime = [{ message: result.messages[0] as Message }, ...runtime.slice(runtime.length - kept)];
  });
}

/** 工具结果配回调用：同一个调用 id 可能在不同轮里重复出现，所以找文件里最近的那一次。 */
function pairToolCalls(entries: ViewEntry[]): void {
  const latestCall = new Map<string, ViewEntry>();
  for (const entry of entries) {
    const message = entry.message as { role?: unknown; content?: unknown; toolCallId?: unknown } | undefined;
    if (entry.type !== "message" || !message) continue;
    if (message.role === "assistant" && Array.isArray(message.content)) {
      for (const block of message.content as Array<{ type?: unknown; id?: unknown }>) {
        if (block?.type === "toolCall" && typeof block.id === "string") latestCall.set(block.id, entry);
      }
    } else if (message.role === "toolResult" && typeof message.toolCallId === "string") {
      const call = latestCall.get(message.toolCallId);
      if (!call) continue;
      entry.callEntry = call.n;
      call.results = { ...call.results, [message.toolCallId]: entry.n };
    }
  }
}

function count(entries: ViewEntry[]): ViewCounts {
  const counts: ViewCounts = { entries: entries.length, messages: 0, user: 0, turns: 0, aborted: 0, errors: 0, toolCalls: 0, offChain: 0 };
  for (const entry of entries) {
    if (entry.off) counts.offChain++;
    const message = entry.message as { role?: unknown; stopReason?: unknown; content?: unknown } | undefined;
    if (entry.type !== "message" || !message) continue;
    counts.messages++;
    if (message.role === "user") counts.user++;
    if (message.role !== "assistant") continue;
    counts.turns++;
    if (message.stopReason === "aborted") counts.aborted++;
    if (message.stopReason === "error") counts.errors++;
    if (Array.isArray(message.content)) {
      counts.toolCalls += message.content.filter((block: { type?: unknown } | null) => block?.type === "toolCall").length;
    }
  }
  return counts;
}
