/**
 * Pi 这一边：真实的 `@earendil-works/pi-ai` 适配器（openai-completions 或 anthropic-messages，指向本地脚本服务器），
 * 真实的 `@earendil-works/pi-agent-core` Agent 循环，全部用 Pi 的默认设置。
 *
 * 回合层（AgentSession：退避重试、溢出压缩）在 `@earendil-works/pi-coding-agent` 里，它在 Node 20 上加载不了
 * （顶层 `import { globSync } from "node:fs"`，以及它带的 undici 需要 zlib 的 zstd），
 * 所以这里用一个几十行的替身 runLikeAgentSession 照 agent-session.ts 逐段转写：
 * 判断用的全是 Pi 自己导出的函数（isContextOverflow、isRetryableAssistantError、isRecoverableLength、retryDelayMs），
 * 每一段都注明它转写的源码行（R12 里有同样的引用，由引用检查器核对）。
 */
import { Agent, type AgentEvent, type AgentMessage, type AgentTool } from "@earendil-works/pi-agent-core";
import {
  isContextOverflow,
  isRecoverableLength,
  isRetryableAssistantError,
  retryDelayMs,
  type AssistantMessage,
  type Message,
  type Model,
} from "@earendil-works/pi-ai";
import { transformMessages } from "@earendil-works/pi-ai/api/transform-messages";
import { streamSimple as streamAnthropic } from "@earendil-works/pi-ai/api/anthropic-messages";
import { streamSimple as streamOpenAI } from "@earendil-works/pi-ai/api/openai-completions";
import { startServer } from "./lab.ts";
import type { PlainMessage, SideResult } from "./observe.ts";
import { MODEL_CONTEXT_WINDOW, MODEL_MAX_TOKENS, type Api, type Scenario } from "./scenarios.ts";
import { neutralTools } from "./tools.ts";

/** 我们设了哪些值（其余全是 Pi 的默认）。R12 的开头列出它们。 */
export const PI_SETTINGS = {
  /** 回合层的第一次等待。Pi 默认 2000 ms；测试里缩成 1 ms，只影响等多久，不影响等几次。 */
  baseDelayMs: 1,
  /** 回合层其余设置：Pi 的默认值（settings-defaults.ts）。 */
  maxRetries: 3,
};

type PiApi = "openai-completions" | "anthropic-messages";

export async function runPi(scenario: Scenario, api: Api): Promise<SideResult> {
  const server = await startServer(scenario.script(api));
  try {
    const model: Model<PiApi> = {
      id: "scripted",
      name: "scripted",
      api: api === "openai" ? "openai-completions" : "anthropic-messages",
      provider: "scripted",
      baseUrl: api === "openai" ? server.openaiBaseUrl : server.anthropicBaseUrl,
      reasoning: false,
      input: ["text"],
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
      contextWindow: MODEL_CONTEXT_WINDOW,
      maxTokens: MODEL_MAX_TOKENS,
    };
    let agent: Agent | undefined;
    const tools: AgentTool[] = neutralTools({ onWaitStarted: () => agent?.abort() }).map((tool) => ({
      name: tool.name,
      label: tool.name,
      description: tool.description,
      parameters: tool.parameters,
      execute: async (_id, params, signal) => ({
        content: [{ type: "text", text: await tool.run(params as Record<string, unknown>, signal) }],
        details: {},
      }),
    }));
    agent = new Agent({
      // 默认的 streamFn 经 api 注册表找到的也是这两个适配器；直接给出，只为带上一个假密钥
      streamFn: (m, context, options) =>
        m.api === "anthropic-messages"
          ? streamAnthropic(m as Model<"anthropic-messages">, context, { ...options, apiKey: "sk-ant-test" })
          : streamOpenAI(m as Model<"openai-completions">, context, { ...options, apiKey: "sk-test" }),
      initialState: { model, systemPrompt: "你是一个测试用的助手。", tools, messages: earlierMessages(scenario, model) },
    });
    const events: string[] = [];
    const current = agent;
    current.subscribe((event: AgentEvent) => {
      if (scenario.cancel === "first-text" && event.type === "message_update" && event.assistantMessageEvent.type === "text_delta") {
        current.abort();
      }
      if (scenario.cancel === "first-tool-result" && event.type === "message_end" && event.message.role === "toolResult") {
        current.abort();
      }
    });
    await runLikeAgentSession(current, scenario.prompt, events);
    const history = current.state.messages.filter((m) => m.role !== "system") as Message[];
    return {
      history: history.map((m) => plain(m)),
      nextRequest: transformMessages([...history], model).map((m) => plain(m)),
      requests: server.requests.length,
      events,
    };
  } finally {
    await server.close();
  }
}

function earlierMessages(scenario: Scenario, model: Model<PiApi>): AgentMessage[] {
  return (scenario.earlier ?? []).flatMap(({ question, answer }) => [
    { role: "user" as const, content: [{ type: "text" as const, text: question }], timestamp: 0 },
    {
      role: "assistant" as const,
      content: [{ type: "text" as const, text: answer }],
      api: model.api,
      provider: model.provider,
      model: model.id,
      usage: { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, totalTokens: 15, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
      stopReason: "stop" as const,
      timestamp: 0,
    },
  ]);
}

/**
 * AgentSession 的运行循环与分诊台的转写（agent-session.ts 1983-1994、2064-2100、3883-3887、3936-3976、
 * 1246-1255、3121-3216）。只转写这些场景走得到的分支；压缩本身（请模型写摘要）不跑，只记下「要压缩并重试」。
 */
async function runLikeAgentSession(agent: Agent, prompt: string, events: string[]): Promise<void> {
  let retryAttempt = 0;
  let overflowRecoveryAttempted = false;
  let last: AssistantMessage | undefined;
  const contextWindow = agent.state.model.contextWindow;
  // 1246-1255：每条助手消息结束时复位溢出标记；重试之后来了一条不是 error 的回复，就是重试成功
  agent.subscribe((event) => {
    if (event.type !== "message_end" || event.message.role !== "assistant") return;
    last = event.message;
    if (last.stopReason !== "error" && last.stopReason !== "length") overflowRecoveryAttempted = false;
    if (last.stopReason !== "error" && retryAttempt > 0) {
      events.push(`auto_retry_end success（第 ${retryAttempt} 次）`);
      retryAttempt = 0;
    }
  });

  /** 3883-3887：溢出交给压缩，不算可重试。 */
  const isRetryable = (m: AssistantMessage): boolean => !isContextOverflow(m, contextWindow) && isRetryableAssistantError(m);

  /** 1308-1341：把失败的这次尝试和它配对的工具结果从模型上下文里省略（会话文件里留着）。 */
  const omit = (message: AssistantMessage): void => {
    const ids = new Set(message.content.flatMap((b) => (b.type === "toolCall" ? [b.id] : [])));
    const index = agent.state.messages.indexOf(message);
    const drop = new Set<AgentMessage>([message]);
    for (const m of index < 0 ? [] : agent.state.messages.slice(index + 1)) {
      if (m.role === "assistant") break;
      if (m.role === "toolResult" && ids.has(m.toolCallId)) drop.add(m);
    }
    agent.state.messages = agent.state.messages.filter((m) => !drop.has(m));
  };

  /** 3936-3976：退避重试的准备。 */
  const prepareRetry = async (message: AssistantMessage): Promise<boolean> => {
    retryAttempt++;
    if (retryAttempt > PI_SETTINGS.maxRetries) {
      retryAttempt--;
      return false;
    }
    const delayMs = retryDelayMs({ baseDelayMs: PI_SETTINGS.baseDelayMs }, retryAttempt);
    events.push(`auto_retry_start #${retryAttempt}`);
    omit(message);
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    return true;
  };

  /** 3121-3216 里这些场景走得到的部分：显式溢出与「可以挽回的 length 停止」都是压缩并重试一次。 */
  const checkCompaction = (message: AssistantMessage): boolean => {
    if (message.stopReason === "aborted") return false;
    const overflow = (message.stopReason === "error" && isContextOverflow(message)) || isContextOverflow(message, contextWindow);
    const recoverableLength = isRecoverableLength(message, agent.state.model.maxTokens);
    if (!overflow && !recoverableLength) return false;
    if (message.stopReason === "stop") {
      events.push("compaction willRetry=false（Pi 请模型写摘要，替身不跑）");
      return false;
    }
    if (overflowRecoveryAttempted) {
      events.push("compaction_failed");
      return false;
    }
    overflowRecoveryAttempted = true;
    omit(message);
    events.push("compaction willRetry=true（Pi 请模型写摘要，替身不跑，也就不重试）");
    return false;
  };

  /** 2064-2100：一次运行之后的分诊。 */
  const handlePostAgentRun = async (): Promise<boolean> => {
    const message = last;
    last = undefined;
    if (!message) return false;
    if (message.stopReason === "aborted") {
      // 被取消：Pi 的 _agentRunAbortRequested 分支，收尾，不重试
      if (retryAttempt > 0) events.push("auto_retry_end 失败：Retry cancelled");
      events.push("abort");
      return false;
    }
    if (isRetryable(message) && (await prepareRetry(message))) return true;
    if (message.stopReason === "error" && retryAttempt > 0) {
      events.push(`auto_retry_end 失败（第 ${retryAttempt} 次）`);
      retryAttempt = 0;
    }
    return checkCompaction(message);
  };

  // 1983-1994：prompt 一次，之后只要分诊台说「还要跑」就 continue
  await agent.prompt(prompt);
  while (await handlePostAgentRun()) await agent.continue();
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((b: { type?: string; text?: string }) => (b.type === "text" ? (b.text ?? "") : "")).join("");
}

function plain(m: Message): PlainMessage {
  if (m.role === "user") return { role: "user", text: textOf(m.content) };
  if (m.role === "toolResult") return { role: "toolResult", text: textOf(m.content), toolName: m.toolName, isError: m.isError };
  if (m.role !== "assistant") return { role: "user", text: `（${m.role}）` }; // 调用方已去掉 system 消息
  const out: PlainMessage = {
    role: "assistant",
    text: textOf(m.content),
    stopReason: m.stopReason,
    toolCalls: m.content.flatMap((b) => (b.type === "toolCall" ? [b.name] : [])),
  };
  if (m.stopReason === "error") {
    // 与 step09 的 classifyAssistantError 同一个顺序：先溢出，再可重试
    out.errorClass = isContextOverflow(m, MODEL_CONTEXT_WINDOW) ? "overflow" : isRetryableAssistantError(m) ? "retryable" : "fatal";
  }
  if (m.errorMessage) out.errorMessage = m.errorMessage;
  return out;
}
