/**
 * 剧本驱动的假模型（FakeModel）。
 *
 * 它实现的是和真实 Provider 完全相同的 StreamFn：按 rules.ts 的剧本挑一条回复，
 * 切成 token，一个一个地「吐」出来，模拟真实模型的流式节奏。
 * 全程离线、结果确定，所以每一步的 demo 都能和 golden 文件逐字比对。
 */

import { describeError } from "./guards/shown.js";
import { pickRule, lastText, RULES, type Rule } from "./rules.js";
import type { AssistantMessage, Context, StreamEvent, StreamFn, ToolCall } from "./types.js";

export interface FakeModelOptions {
  /** 剧本，第一条命中的规则生效。默认用 rules.ts 里的 RULES。 */
  rules?: Rule[];
  /** 相邻两个 token 之间隔多少毫秒；0 表示不等待（单元测试用）。 */
  delayMs?: number;
}

/** 创建一个假模型。返回值就是一个 StreamFn，上层分不出它是真是假。 */
export function createFakeModel(options: FakeModelOptions = {}): StreamFn {
  const { rules = RULES, delayMs = 0 } = options;
  return (context) => streamReply(context, rules, delayMs);
}

/** 切成 token：汉字两个一组，英文单词连同前面的空格一组，其余字符各自一组。 */
export function tokenize(text: string): string[] {
  return text.match(/\p{Script=Han}{1,2}|\s*[A-Za-z0-9_]+|[^]/gu) ?? [];
}

/** 按剧本算出这一次要说的话、要发起的工具调用、要模拟的错误。 */
function decideReply(context: Context, rules: Rule[]): { text: string; toolCalls: ToolCall[]; error?: string } {
  const rule = pickRule(rules, context);
  if (!rule) return { text: "", toolCalls: [], error: "剧本里没有任何一条规则匹配（连兜底规则都没有）" };
  const text = typeof rule.reply === "function" ? rule.reply(context) : rule.reply;
  const toolCalls: ToolCall[] = [];
  if (rule.toolCall) {
    // 调用编号取「上下文里已有多少次工具调用」，同一会话里不重复，重跑也不变。
    const id = `call_${countToolCalls(context) + 1}`;
    toolCalls.push({ type: "toolCall", id, name: rule.toolCall.name, arguments: rule.toolCall.arguments(lastText(context)) });
  }
  return { text, toolCalls, ...(rule.error ? { error: rule.error } : {}) };
}

/**
 * 上下文里已经有多少次工具调用。真实模型的调用编号由服务端生成（形如 call_abc123），
 * 假模型用计数代替，输出才稳定。
 */
function countToolCalls(context: Context): number {
  let count = 0;
  for (const message of context.messages) {
    if (message.role === "assistant") count += message.content.filter((part) => part.type === "toolCall").length;
  }
  return count;
}

/** 最朴素的 sleep：睡够 ms 毫秒。它还不能被打断——step07 会解决这件事。 */
function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * 吐完全部 token 之后的收尾消息：有工具调用就是 toolUse，出错就是 error，否则 stop。
 * 出错时已吐出的文字仍然保留在 content 里——和取消一样，说过的话不会收回。
 */
function finalMessage(text: string, toolCalls: ToolCall[], error?: string): AssistantMessage {
  const content: AssistantMessage["content"] = text.length > 0 ? [{ type: "text", text }] : [];
  if (error) return { role: "assistant", content, stopReason: "error", errorMessage: error };
  content.push(...toolCalls);
  return { role: "assistant", content, stopReason: toolCalls.length > 0 ? "toolUse" : "stop" };
}

/** 真正「吐字」的地方。契约：不抛异常——失败编码在最后那个 done 事件里。 */
async function* streamReply(context: Context, rules: Rule[], delayMs: number): AsyncGenerator<StreamEvent> {
  let reply: ReturnType<typeof decideReply>;
  try {
    reply = decideReply(context, rules);
  } catch (error) {
    // 剧本里的回复函数写错了：同样编码成 error，而不是让异常冲出 StreamFn。
    const errorMessage = `剧本规则出错：${describeError(error)}`; // 你写的规则可能抛出任何值
    yield { type: "done", message: { role: "assistant", content: [], stopReason: "error", errorMessage } };
    return;
  }
  let text = "";
  for (const token of tokenize(reply.text)) {
    if (delayMs > 0) await sleep(delayMs);
    text += token;
    yield { type: "text_delta", delta: token };
  }
  yield { type: "done", message: finalMessage(text, reply.toolCalls, reply.error) };
}
