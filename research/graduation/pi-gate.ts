/**
 * 毕业练习的第二半（npm run exercise -- pi）在 Pi 这一边要做的事：把练习 10 的 extensions/protected-paths.ts
 * 原样交给 Pi 自己的加载器，放进一个保留了内置工具（read、bash、edit、write）的真实 AgentSession。
 *
 * cwd 是一个临时项目，先放好 seeded 里的文件；模型（本地脚本服务器）每一轮发一个工具调用，依次是 calls 里的每一个。
 * 哪些调用真的执行了，由检查器自己的一个观察扩展在 tool_result 上记下（Pi 只对执行了的调用发 tool_result，
 * 被 tool_call 阻止的不发：pi-agent-core 的 runToolCall 在 beforeToolCall 阻止后不执行、不调 afterToolCall）。
 * 最后交回 Pi 会话记录里每个调用的工具结果、执行了没有，以及 seeded 文件的最终内容。判断对错在检查器里。
 */
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createAgentSession, discoverAndLoadExtensions, ModelRuntime, SessionManager, SettingsManager, type ResourceLoader } from "@earendil-works/pi-coding-agent";
import { startServer } from "../conformance/lab.ts";
import { PI_SESSION_SETTINGS } from "../conformance/pi-session-settings.ts";

export interface GateRequest {
  file: string;
  /** 相对项目目录的路径 → 内容：会话开始前放好。 */
  seeded: Record<string, string>;
  /** Pi 的工具名（write、edit、read）与参数，按这个次序调用。 */
  calls: Array<{ name: string; arguments: Record<string, unknown> }>;
}

export interface GateFacts {
  loadErrors: string[];
  /** 与 calls 一一对应。 */
  results?: Array<{ text: string; isError: boolean; executed: boolean } | null>;
  /** seeded 里每个文件最后的内容（没了是 null）。 */
  files?: Record<string, string | null>;
  sessionError?: string;
}

const firstLine = (error: unknown): string => (error instanceof Error ? error.message : String(error)).split("\n")[0] ?? "";
const RAN = "__piGraduationRan";

export async function runGate(request: GateRequest): Promise<GateFacts> {
  // realpath：macOS 的 /var 是 /private/var 的链接，Pi 的 cwd 与扩展看到的 ctx.cwd 要是同一个样子
  const base = realpathSync(mkdtempSync(path.join(os.tmpdir(), "pi-gate-")));
  const project = path.join(base, "project");
  const agentDir = path.join(base, "agent");
  try {
    mkdirSync(agentDir, { recursive: true });
    for (const [file, content] of Object.entries(request.seeded)) {
      mkdirSync(path.dirname(path.join(project, file)), { recursive: true });
      writeFileSync(path.join(project, file), content);
    }
    // 检查器自己的观察扩展：排在学习者的闸门之后加载，只记下哪些调用真的执行了
    const observer = path.join(agentDir, "observer.ts");
    writeFileSync(observer, `export default function (pi) { pi.on("tool_result", (event) => { (globalThis.${RAN} ??= []).push(event.toolCallId); }); }\n`);
    const loaded = await discoverAndLoadExtensions([request.file, observer], agentDir, agentDir);
    const facts: GateFacts = { loadErrors: loaded.errors.map((e) => firstLine(e.error)) };
    if (facts.loadErrors.length > 0) return facts;
    (globalThis as Record<string, unknown>)[RAN] = [];
    try {
      facts.results = await inSession(request, loaded, project, agentDir);
    } catch (error) {
      facts.sessionError = firstLine(error);
    }
    facts.files = Object.fromEntries(
      Object.keys(request.seeded).map((file) => {
        try {
          return [file, readFileSync(path.join(project, file), "utf8")];
        } catch {
          return [file, null];
        }
      }),
    );
    return facts;
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}

async function inSession(request: GateRequest, loaded: Awaited<ReturnType<typeof discoverAndLoadExtensions>>, cwd: string, agentDir: string): Promise<NonNullable<GateFacts["results"]>> {
  const ids = request.calls.map((_, index) => `call_${index + 1}`);
  const turns = [...request.calls.map((call, index) => ({ toolCalls: [{ id: ids[index]!, ...call }] })), { text: "好。" }];
  const server = await startServer(turns);
  try {
    const provider = { baseUrl: server.openaiBaseUrl, api: "openai-completions", apiKey: "sk-test", models: [{ id: "scripted", contextWindow: 128_000, maxTokens: 4096 }] };
    writeFileSync(path.join(agentDir, "models.json"), JSON.stringify({ providers: { scripted: provider } }));
    const modelRuntime = await ModelRuntime.create({ authPath: path.join(agentDir, "auth.json"), modelsPath: path.join(agentDir, "models.json") });
    const model = modelRuntime.getModel("scripted", "scripted");
    if (!model) throw new Error("models.json 里的 scripted 模型没有加载");
    const sessionManager = SessionManager.inMemory(cwd);
    // 不传 noTools：内置的 read、bash、edit、write 都在，cwd 就是它们的工作目录；不绑定界面：ctx.hasUI 是 false
    const { session } = await createAgentSession({
      cwd,
      agentDir,
      model,
      thinkingLevel: "off",
      modelRuntime,
      resourceLoader: resources(loaded),
      sessionManager,
      settingsManager: SettingsManager.inMemory(PI_SESSION_SETTINGS),
    });
    try {
      await session.prompt("按顺序改这几个文件");
    } finally {
      session.dispose();
    }
    const ran = new Set((globalThis as Record<string, unknown>)[RAN] as string[]);
    const results = sessionManager
      .getEntries()
      .flatMap((entry) => (entry.type === "message" && entry.message.role === "toolResult" ? [entry.message] : []));
    return ids.map((id) => {
      const result = results.find((message) => message.toolCallId === id);
      if (!result) return null;
      const text = result.content.map((block) => (block.type === "text" ? block.text : `[${block.type}]`)).join("");
      return { text, isError: result.isError === true, executed: ran.has(id) };
    });
  } finally {
    await server.close();
  }
}

/** 只有这两个扩展，别的资源（技能、提示模板、AGENTS.md）一概没有。 */
function resources(loaded: Awaited<ReturnType<typeof discoverAndLoadExtensions>>): ResourceLoader {
  return {
    getExtensions: () => loaded,
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
