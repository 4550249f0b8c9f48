/**
 * Agent 循环：让模型与工具来回配合，直到模型不再要求调用工具。
 *
 *   第 1 轮：把上下文交给模型 → 模型说话，并要求调用工具 → 执行工具，结果放回上下文
 *   第 2 轮：再把（多了工具结果的）上下文交给模型 → ……
 *   直到某一轮模型只说话、不再调用工具，或者轮数用完。
 *
 * 它是一个异步生成器：边跑边产出 HarnessEvent，自己不打印任何东西。
 * 谁来显示（render.ts）、谁来保存、谁来观察，
 * 都由调用方决定——循环只负责「下一步做什么」。
 *
 * 取消：循环自己只在三个点上检查 signal——开始新一轮之前、模型流结束之后、每个工具执行之前。
 * 第四个取消点在工具里面（照 Pi 的 executePreparedToolCall）：同一个 signal 经注册表交进 execute，
 * bash 收到它就结束整棵进程树，write、edit 在安全的地方停手；循环等工具如实交回结果。
 * 不理会信号的工具由注册表兜底（tools/types.ts：Ctrl+C 后最多再等 CANCEL_GRACE_MS）。
 * 真正让正在等待的模型醒过来的，是被透传进 streamFn 的同一个 signal，
 * 它一路传到最底层那个可取消的 sleep（真实模型里是 fetch）。
 */

import type { ToolContext, ToolRegistry } from "./tools/types.js";
import type { AssistantMessage, Context, HarnessEvent, StreamFn, StreamOptions, ToolCall } from "./types.js";

/** 一次回复最多跑几轮，防止模型与工具无休止地来回。 */
export const DEFAULT_MAX_TURNS = 8;

/**
 * runAgentLoop 的全部输入。循环自己不创建任何东西：模型、上下文、工具、信号都由
 * 调用方交进来，所以测试可以换上任意的假模型，main.ts 与 demo.ts 也能各自装配。
 */
export interface RunAgentLoopOptions {
  /** 模型。FakeModel 与真实 Provider 都实现这个类型，循环分不出真假。 */
  streamFn: StreamFn;
  /** 对话上下文。循环会往 context.messages 里追加助手消息与工具结果。 */
  context: Context;
  /** 可用工具。它们的说明会随上下文一起交给模型。 */
  tools: ToolRegistry;
  /** 交给每个工具的环境信息，例如项目根目录。 */
  toolContext: ToolContext;
  /** 最多几轮，默认 DEFAULT_MAX_TURNS。 */
  maxTurns?: number;
  /** 透传给 streamFn 的其余选项。 */
  streamOptions?: StreamOptions;
  /** 取消信号。会被透传给 streamFn，循环自己也在几个点上检查它。 */
  signal?: AbortSignal;
}

/**
 * 一条助手消息里的全部工具调用，按出现顺序。
 * 模型可以在一次回复里要求调用多个工具，循环会逐个执行。
 */
function toolCallsOf(message: AssistantMessage): ToolCall[] {
  return message.content.filter((part): part is ToolCall => part.type === "toolCall");
}

/**
 * StreamFn 按契约必须以一个 done 事件收尾。万一某个实现没做到，
 * 宿主也不能因此崩溃：把它记成一条 error 消息，和其他失败走同一条路。
 */
function missingDone(): AssistantMessage {
  return { role: "assistant", content: [], stopReason: "error", errorMessage: "模型流没有给出结束事件（done）" };
}

/**
 * 运行 Agent 循环。
 *
 * 产出的事件依次是：
 *   turn_start → text_delta… → message(助手) → [tool_call → message(工具结果)]… → turn_end
 * 被取消时以 abort 收尾；轮数用完时以 max_turns 收尾。
 * 生成器结束时，context.messages 已经包含这次回复产生的全部消息。
 *
 *
 * 几条不变的规矩：
 *   - 每条进入上下文的消息都会以 message 事件产出一次，调用方据此显示、落盘；
 *   - 助手消息先进上下文、再判断要不要停——半截的回复也是历史的一部分；
 *   - 出错不抛异常：模型失败是 stopReason 为 "error" 的消息，工具失败是 isError 的结果。
 *
 * 四个取消点在一轮里的位置：
 *
 *   ┌ 取消点一：开始新一轮之前
 *   │   turn_start → streamFn(context, { signal })   ← signal 让模型里的等待立刻醒来
 *   ├ 取消点二：助手消息进了上下文之后，若它的 stopReason 是 "aborted"
 *   │   对每个工具调用：
 *   ├ 取消点三：    执行这个工具之前
 *   ├ 取消点四：    tools.execute(…) 里面             ← signal 交给工具，由工具自己停下
 *   └ turn_end，进入下一轮
 */
export async function* runAgentLoop(options: RunAgentLoopOptions): AsyncGenerator<HarnessEvent> {
  const { streamFn, context, tools, toolContext, streamOptions, signal } = options;
  const maxTurns = options.maxTurns ?? DEFAULT_MAX_TURNS;
  if (!Number.isInteger(maxTurns) || maxTurns < 1) {
    // 这是调用方的编程错误，不是运行中的失败，所以直接抛出。
    throw new RangeError(`maxTurns 必须是正整数，收到的是 ${maxTurns}`);
  }

  // 工具说明随上下文一起交给模型：模型只能调用它「看得见」的工具。
  // 扩展注册的工具在加载时就进了注册表，所以这里拿到的已经是完整清单。
  context.tools = tools.specs();

  for (let turn = 1; turn <= maxTurns; turn++) {
    // 取消点一：开始新一轮之前。
    if (signal?.aborted) {
      yield { type: "abort" };
      return;
    }
    yield { type: "turn_start", turn };
    // 把整个上下文交给模型；模型吐出的文本片段原样转发给下游。
    let assistant: AssistantMessage | undefined;
    for await (const event of streamFn(context, { ...streamOptions, signal })) {
      if (event.type !== "done") yield event; // 文字与推理的增量原样转发
      else assistant = event.message;
    }

    // 按契约，模型流一定以 done 收尾；万一某个实现没做到，宿主也不能因此崩溃，
    // 于是补一条 error 消息，让它和其他失败走同一条路：
    // 进上下文、落盘、显示成一行错误，然后结束这次回复。
    assistant ??= missingDone();

    // 部分内容也要进上下文：用户已经在屏幕上看到它了，
    // 历史里少了这一段，下一轮模型和用户看到的就不是同一份对话。
    context.messages.push(assistant);
    yield { type: "message", message: assistant };
    // 取消点二：模型这一轮是被打断的，不再往下执行工具。
    if (assistant.stopReason === "aborted") {
      yield { type: "abort" };
      return;
    }

    // 模型出错，或者只说话不调工具：这一轮就是最后一轮。
    const toolCalls = toolCallsOf(assistant);
    if (assistant.stopReason === "error" || toolCalls.length === 0) {
      yield { type: "turn_end", turn };
      return;
    }
    for (const toolCall of toolCalls) {
      // 取消点三：每个工具执行之前。循环不掐断已经开始的工具：停不停由工具自己看信号决定，
      // 半途硬停一个正在写文件的工具比让它写完更危险；循环只是 Ctrl+C 后不再等它。
      if (signal?.aborted) {
        yield { type: "abort" };
        return;
      }
      yield { type: "tool_call", toolCall };
      // 取消点四在工具里面：这一轮的 signal 交进工具，Ctrl+C 时工具自己停下，交回的结果说它做到了哪一步
      const result = await tools.execute(toolCall, signal ? { ...toolContext, signal } : toolContext);
      context.messages.push(result);
      yield { type: "message", message: result };
    }
    yield { type: "turn_end", turn };
  }
  yield { type: "max_turns", maxTurns };
}
