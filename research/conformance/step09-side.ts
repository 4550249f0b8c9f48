/**
 * step09 这一边：实验自己的两个适配器（指向同一个脚本服务器）、ToolRegistry、
 * runWithRetry（里面是 runAgentLoop），全部用 step09 的默认设置，与 main.ts 的装配方式相同。
 */
import path from "node:path";
import { importLab, startServer, STEP09 } from "./lab.ts";
import type { PlainMessage, SideResult } from "./observe.ts";
import { MODEL_CONTEXT_WINDOW, MODEL_MAX_TOKENS, type Api, type Scenario } from "./scenarios.ts";
import { neutralTools } from "./tools.ts";

/** 我们设了哪些值（其余全是 step09 的默认）。 */
export const STEP09_SETTINGS = {
  /** 回合层第一次等待。step09 默认 2000 ms；和 Pi 那边一样缩成 1 ms。 */
  baseDelayMs: 1,
};

// step09 的类型只写用得到的部分
interface LabMessage {
  role: "user" | "assistant" | "toolResult";
  content: string | Array<{ type: string; text?: string; name?: string; thinking?: string }>;
  stopReason?: string;
  errorMessage?: string;
  toolName?: string;
  isError?: boolean;
}
interface LabEvent {
  type: string;
  message?: LabMessage;
  attempt?: number;
  success?: boolean;
  willRetry?: boolean;
  dropped?: number;
}
interface ToolRegistry {
  register(tool: { name: string; description: string; parameters: Record<string, unknown>; execute(args: Record<string, unknown>, context: { signal?: AbortSignal }): Promise<{ content: string; isError?: boolean }> }): void;
}
type Connection = { baseUrl: string; apiKey: string; model: string; maxTokens?: number };
interface Step09 {
  createOpenAIStream(config: Connection): unknown;
  createAnthropicStream(config: Connection): unknown;
  ToolRegistry: new () => ToolRegistry;
  runWithRetry(options: Record<string, unknown>): AsyncGenerator<LabEvent>;
  transformMessages(messages: LabMessage[]): LabMessage[];
  classifyAssistantError(message: LabMessage, contextWindow?: number): string;
}

async function loadStep09(): Promise<Step09> {
  const [provider, anthropic, tools, retry, transform, classify] = await Promise.all([
    importLab<Pick<Step09, "createOpenAIStream">>(path.join(STEP09, "providers/openai-completions.ts")),
    importLab<Pick<Step09, "createAnthropicStream">>(path.join(STEP09, "providers/anthropic-messages.ts")),
    importLab<Pick<Step09, "ToolRegistry">>(path.join(STEP09, "tools/types.ts")),
    importLab<Pick<Step09, "runWithRetry">>(path.join(STEP09, "retry/turn-retry.ts")),
    importLab<Pick<Step09, "transformMessages">>(path.join(STEP09, "providers/transform-messages.ts")),
    importLab<Pick<Step09, "classifyAssistantError">>(path.join(STEP09, "retry/classify.ts")),
  ]);
  return { ...provider, ...anthropic, ...tools, ...retry, ...transform, ...classify };
}

export async function runStep09(scenario: Scenario, api: Api): Promise<SideResult> {
  const lab = await loadStep09();
  const server = await startServer(scenario.script(api));
  try {
    const controller = new AbortController();
    const registry = new lab.ToolRegistry();
    for (const tool of neutralTools({ onWaitStarted: () => controller.abort() })) {
      registry.register({
        name: tool.name,
        description: tool.description,
        parameters: tool.parameters,
        execute: async (args, context) => ({ content: await tool.run(args, context.signal) }),
      });
    }
    const messages: LabMessage[] = [
      ...(scenario.earlier ?? []).flatMap(({ question, answer }): LabMessage[] => [
        { role: "user", content: question },
        { role: "assistant", content: [{ type: "text", text: answer }], stopReason: "stop" },
      ]),
      { role: "user", content: scenario.prompt },
    ];
    const context = { messages };
    const events: string[] = [];
    const run = lab.runWithRetry({
      streamFn:
        api === "openai"
          ? lab.createOpenAIStream({ baseUrl: server.openaiBaseUrl, apiKey: "sk-test", model: "scripted", maxTokens: MODEL_MAX_TOKENS })
          : lab.createAnthropicStream({ baseUrl: server.anthropicBaseUrl, apiKey: "sk-ant-test", model: "scripted", maxTokens: MODEL_MAX_TOKENS }),
      context,
      tools: registry,
      toolContext: { cwd: process.cwd(), signal: controller.signal },
      signal: controller.signal,
      contextWindow: MODEL_CONTEXT_WINDOW,
      baseDelayMs: STEP09_SETTINGS.baseDelayMs,
    });
    for await (const event of run) {
      if (scenario.cancel === "first-text" && event.type === "text_delta") controller.abort();
      if (scenario.cancel === "first-tool-result" && event.type === "message" && event.message?.role === "toolResult") controller.abort();
      const brief = describe(event);
      if (brief) events.push(brief);
    }
    const plainOf = (m: LabMessage): PlainMessage => plain(m, lab);
    return {
      history: context.messages.map(plainOf),
      nextRequest: lab.transformMessages(context.messages).map(plainOf),
      requests: server.requests.length,
      events,
    };
  } finally {
    await server.close();
  }
}

/** 与 Pi 那边同样措辞的事件名。 */
function describe(event: LabEvent): string | undefined {
  if (event.type === "auto_retry_start") return `auto_retry_start #${event.attempt}`;
  if (event.type === "auto_retry_end") return event.success ? `auto_retry_end success（第 ${event.attempt} 次）` : `auto_retry_end 失败（第 ${event.attempt} 次）`;
  if (event.type === "compaction") return `compaction willRetry=${event.willRetry}`;
  if (event.type === "compaction_failed") return "compaction_failed";
  if (event.type === "abort") return "abort";
  return undefined;
}

function textOf(content: LabMessage["content"]): string {
  if (typeof content === "string") return content;
  return content.map((b) => (b.type === "text" ? (b.text ?? "") : "")).join("");
}

function plain(m: LabMessage, lab: Step09): PlainMessage {
  if (m.role === "user") return { role: "user", text: textOf(m.content) };
  if (m.role === "toolResult") return { role: "toolResult", text: textOf(m.content), toolName: m.toolName, isError: m.isError === true };
  const out: PlainMessage = {
    role: "assistant",
    text: textOf(m.content),
    thinking: Array.isArray(m.content) ? m.content.map((b) => (b.type === "thinking" ? (b.thinking ?? "") : "")).join("") : "",
    stopReason: m.stopReason,
    toolCalls: Array.isArray(m.content) ? m.content.flatMap((b) => (b.type === "toolCall" ? [b.name ?? ""] : [])) : [],
  };
  if (m.stopReason === "error") out.errorClass = lab.classifyAssistantError(m, MODEL_CONTEXT_WINDOW);
  if (m.errorMessage) out.errorMessage = m.errorMessage;
  return out;
}
