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
  return (context, streamOptions) => streamReply(context, rules, delayMs, streamOptions?.signal);
}

/** 切成 token：汉字两个一组，英文单词连同前面的空格一组，其余字符各自一组。 */
export function tokenize(text: string): string[] {
  return text.match(/\p{Script=Han}{1,2}|\s*[A-Za-z0-9_]+|[^]/gu) ?? [];
}

/**
 * 按剧本算出这一次要说的话、要发起的工具调用、要模拟的错误。
 * 导出它，是因为本地脚本服务器（labs/scripted-provider/）用同一套剧本回答 HTTP 请求。
 */
export function decideReply(context: Context, rules: Rule[] = RULES): { text: string; toolCalls: ToolCall[]; error?: string } {
  const rule = pickRule(rules, context);
  if (!rule) return { text: "", toolCalls: [], error: "剧本里没有任何一条规则匹配（连兜底规则都没有）" };
  const text = typeof rule.reply === "function" ? rule.reply(context) : rule.reply;
  const toolCalls: ToolCall[] = [];
  // 参数可以由整个上下文算出来；算出 undefined 就是这一次不调用（比如 edit 失败后不值得再试）
  const args = rule.toolCall?.arguments(lastText(context), context);
  if (rule.toolCall && args) {
    // 调用编号取「上下文里已有多少次工具调用」，同一会话里不重复，重跑也不变。
    const id = `call_${countToolCalls(context) + 1}`;
    toolCalls.push({ type: "toolCall", id, name: rule.toolCall.name, arguments: args });
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

/** 可以被取消的 sleep：定时器与 abort 事件赛跑，谁先到谁收尾；永远 resolve，不会 reject。 */
function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted || ms <= 0) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(finish, ms);
    function finish(): void {
      clearTimeout(timer);
      signal?.removeEventListener("abort", finish);
      resolve();
    }
    signal?.addEventListener("abort", finish, { once: true });
  });
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

/**
 * 真正「吐字」的地方。契约：不抛异常——取消与失败都编码在最后那个 done 事件里。
 *
 * 节奏按绝对时间排期：第 n 个 token 定在开始后 n × delayMs 毫秒，而不是「上一个之后再睡 delayMs」。
 * 机器很忙时定时器会晚到，相对时间会越拖越晚、累积误差；绝对时间不会，
 * 所以 demo 里「700 毫秒时取消」总是恰好落在第 3 与第 4 个 token 之间。
 *
 * 取消在这里只查一处：每个 token 吐出之前。sleep 负责让正在进行的等待立刻醒来，
 * 醒来之后由 signal.aborted 的检查决定收尾——两件事分开，各管一段。
 */
async function* streamReply(
  context: Context,
  rules: Rule[],
  delayMs: number,
  signal?: AbortSignal,
): AsyncGenerator<StreamEvent> {
  let reply: ReturnType<typeof decideReply>;
  try {
    reply = decideReply(context, rules);
  } catch (error) {
    // 剧本里的回复函数写错了：同样编码成 error，而不是让异常冲出 StreamFn。
    const errorMessage = `剧本规则出错：${describeError(error)}`;
    yield { type: "done", message: { role: "assistant", content: [], stopReason: "error", errorMessage } };
    return;
  }
  // 时间表的起点：所有 token 的吐出时刻都从这一刻算起。
  const startedAt = performance.now();
  let text = "";
  for (const [index, token] of tokenize(reply.text).entries()) {
    if (delayMs > 0) await sleep(startedAt + (index + 1) * delayMs - performance.now(), signal);
    // 每吐一个 token 前检查一次取消：把已生成的部分内容原样交出去，
    // 用 stopReason "aborted" 标明「我是被打断的，不是说完了」。
    if (signal?.aborted) {
      yield {
        type: "done",
        message: {
          role: "assistant",
          content: text.length > 0 ? [{ type: "text", text }] : [],
          stopReason: "aborted",
        },
      };
      return;
    }
    text += token;
    yield { type: "text_delta", delta: token };
  }
  yield { type: "done", message: finalMessage(text, reply.toolCalls, reply.error) };
}

/**
 * 把「第 abortAtMs 毫秒取消」排进假模型的同一张时间表（demo 场景 2 用）：token 在 delayMs、2 × delayMs……吐出，
 * 取消落在哪两个 token 之间，只由时间表上的先后决定——第 k 个 token 的时刻 k × delayMs 若晚于 abortAtMs，
 * 就先取消、再向模型要它。真实时钟只负责节奏（等到第 abortAtMs 毫秒才按下「Ctrl+C」），不参与判断：
 * 进程被调度得再晚、几个定时器同时到期，屏幕上也恰好留下时间表上 abortAtMs 之前的那几个 token。
 */
export function abortOnSchedule(
  streamFn: StreamFn,
  schedule: { delayMs: number; abortAtMs: number; controller: AbortController },
): StreamFn {
  const { delayMs, abortAtMs, controller } = schedule;
  return async function* (context, streamOptions) {
    // 与假模型的 startedAt 几乎同一刻：中间只有同步代码与微任务（只影响节奏，不影响结果）
    const startedAt = performance.now();
    let tokens = 0;
    const abortIfDue = async (): Promise<void> => {
      if (controller.signal.aborted || (tokens + 1) * delayMs <= abortAtMs) return;
      await sleep(startedAt + abortAtMs - performance.now());
      controller.abort();
    };
    await abortIfDue();
    for await (const event of streamFn(context, streamOptions)) {
      yield event;
      if (event.type !== "text_delta") continue;
      tokens++;
      await abortIfDue(); // 下一个 token 排在取消之后：先取消，再去要它
    }
  };
}
