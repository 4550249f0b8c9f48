/**
 * 把一边跑完的结果压成可以逐行比较的文字：去掉编号、时间戳、用量、错误原文的措辞，
 * 留下角色、停止原因、文字、工具名、是否出错、错误的分类、服务器收到几个请求、重试与取消事件。
 */

/** 两边都能压成这种形状的消息。 */
export interface PlainMessage {
  role: "user" | "assistant" | "toolResult";
  text: string;
  /** 助手消息里的思考（只比有没有、内容是什么；签名不比）。 */
  thinking?: string;
  stopReason?: string;
  toolCalls?: string[];
  toolName?: string;
  isError?: boolean;
  /** 错误消息的分类（用这一边自己的分类函数算）：retryable / overflow / fatal。 */
  errorClass?: string;
  /** 原文：只显示，不比较（两边的措辞本来就不同，一边英文一边中文）。 */
  errorMessage?: string;
}

export interface SideResult {
  /** 运行结束后的运行时历史（Pi：agent.state.messages 去掉 system；step09：context.messages）。 */
  history: PlainMessage[];
  /** 下一次请求真正会发出的消息：各自的 transformMessages 之后。 */
  nextRequest: PlainMessage[];
  /** 服务器收到的请求数。 */
  requests: number;
  /** 重试、压缩、取消事件，按发生顺序。 */
  events: string[];
}

/** 长文字只留开头：早先对话里那些几万字的回答。 */
function brief(text: string): string {
  const chars = Array.from(text);
  return chars.length > 40 ? `${chars.slice(0, 16).join("")}…（共 ${chars.length} 字）` : text;
}

/** 一行比较用的文字。 */
export function line(m: PlainMessage): string {
  if (m.role === "user") return `user「${brief(m.text)}」`;
  if (m.role === "toolResult") {
    const synthetic = m.text === "No result provided" ? "，补齐的" : "";
    return `toolResult ${m.toolName} ${m.isError ? "error" : "ok"}${synthetic}`;
  }
  const parts = [`assistant ${m.stopReason}`];
  if (m.thinking) parts.push(`思考「${brief(m.thinking)}」`);
  if (m.text) parts.push(`「${brief(m.text)}」`);
  if (m.toolCalls?.length) parts.push(`调用 ${m.toolCalls.join(", ")}`);
  if (m.errorClass) parts.push(`[${m.errorClass}]`);
  return parts.join(" ");
}

/** 比较的几个方面。 */
export const ASPECTS = ["history", "nextRequest", "requests", "events"] as const;
export type Aspect = (typeof ASPECTS)[number];

export const ASPECT_NAMES: Record<Aspect, string> = {
  history: "运行时历史",
  nextRequest: "下一次请求",
  requests: "请求数",
  events: "重试/取消事件",
};

export function aspectValue(side: SideResult, aspect: Aspect): string[] {
  if (aspect === "requests") return [String(side.requests)];
  if (aspect === "events") return side.events;
  return side[aspect].map(line);
}

/** 哪几个方面不一样。 */
export function differences(pi: SideResult, lab: SideResult): Aspect[] {
  return ASPECTS.filter((aspect) => aspectValue(pi, aspect).join("\n") !== aspectValue(lab, aspect).join("\n"));
}
