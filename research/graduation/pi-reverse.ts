/**
 * 毕业练习（npm run exercise -- pi）在 Pi 这一边要做的事：子进程入口，跑在 Node ≥ 22.19 上。
 *
 * 用 Pi 自己的加载器（discoverAndLoadExtensions，里面是 jiti）加载学习者的扩展，放进一个真实的 AgentSession：
 * 模型经 models.json 指向本地脚本服务器，脚本让模型依次用 inputs 里的每段文本调用 reverse，最后说一句话收尾。
 * 然后从 Pi 自己的会话记录（SessionManager 的条目）里取出每次工具结果。另外直接试一试注册的工具定义
 * （参数 schema 交给 Pi 自己的校验函数、execute 按 Pi 的签名调用一次），好在不对时说出差在哪。
 *
 * 请求里带着 gate（练习 10 的 protected-paths.ts 与用例）时，再跑 pi-gate.ts 的那一半，结果放在 facts.gate。
 * 参数是一段 JSON：{ file, inputs, probe, gate? }；结果是一行 JSON，前面带 RESULT_MARK（Pi 往 stdout 打的别的东西不会混进来）。
 * 这里只收集事实，判断对错在检查器里（scripts/lib/exercises/graduation.ts）。
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import {
  createAgentSession,
  discoverAndLoadExtensions,
  ModelRuntime,
  SessionManager,
  SettingsManager,
  type LoadExtensionsResult,
  type ResourceLoader,
} from "@earendil-works/pi-coding-agent";
import { validateToolArguments } from "@earendil-works/pi-ai";
import { startServer } from "../conformance/lab.ts";
import { runGate, type GateFacts, type GateRequest } from "./pi-gate.ts";
import { PI_SESSION_SETTINGS } from "../conformance/pi-session-settings.ts";

export const RESULT_MARK = "@@pi-graduation@@";

export interface Request {
  file: string;
  inputs: string[];
  probe: string;
  gate?: GateRequest;
}

/** 一次调用的结局：返回了什么（转成 JSON 能表达的样子），或者抛了什么。 */
export type Outcome = { returned: unknown; kind: string; keys?: string[] } | { threw: string };

export interface PiFacts {
  loadErrors: string[];
  tools: string[];
  definition?: { label: unknown; description: unknown; parameters: unknown; execute: string };
  /** Pi 的参数校验：接受 { text } 时为 null，否则是 Pi 的错误文字；缺 text、text 是对象时应当拒绝。 */
  schema?: { accepts: string | null; rejectsMissing: boolean; rejectsObject: boolean };
  /** 按 Pi 的签名调用：execute("probe-call", { text }, undefined, undefined, ctx)；按我们宿主的签名：execute({ text })。 */
  probe?: { pi: Outcome; ours: Outcome };
  /** 会话里每次 reverse 调用：模型给的参数、Pi 会话记录里的工具结果。 */
  session?: { calls: Array<{ arguments: unknown; result?: { content: unknown; isError: boolean; details: unknown } }>; final?: string; requests: number };
  sessionError?: string;
  gate?: GateFacts;
}

const firstLine = (error: unknown): string => (error instanceof Error ? error.message : String(error)).split("\n")[0] ?? "";

/** 值的种类：给检查器说「返回了一个字符串」之类的话。 */
const kindOf = (value: unknown): string => (value === null ? "null" : Array.isArray(value) ? "array" : typeof value);

/** 转成 JSON 能表达的样子（函数、undefined 之类变成说明文字）：结果要经 stdout 交给检查器。 */
function plain(value: unknown): unknown {
  try {
    return JSON.parse(JSON.stringify(value, (_key, v: unknown) => (typeof v === "function" ? "[函数]" : typeof v === "bigint" ? `${v}n` : v)) ?? "null");
  } catch {
    return String(value);
  }
}

async function call(run: () => unknown): Promise<Outcome> {
  try {
    const value = await run();
    // keys：JSON 表达不了值为 undefined 的属性，details 在不在要另外记
    return { returned: plain(value), kind: kindOf(value), ...(kindOf(value) === "object" ? { keys: Object.keys(value as object) } : {}) };
  } catch (error) {
    return { threw: firstLine(error) };
  }
}

export async function runGraduation(request: Request): Promise<PiFacts> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "pi-graduation-"));
  try {
    // 空的 cwd 和 agentDir：除了学习者的文件，什么扩展都发现不了
    const loaded: LoadExtensionsResult = await discoverAndLoadExtensions([request.file], dir, dir);
    const facts: PiFacts = { loadErrors: loaded.errors.map((e) => firstLine(e.error)), tools: [] };
    const tools = loaded.extensions.flatMap((extension) => [...extension.tools.values()].map((tool) => tool.definition));
    facts.tools = tools.map((tool) => tool.name);
    const reverse = tools.find((tool) => tool.name === "reverse");
    if (!reverse) return facts;
    facts.definition = { label: plain(reverse.label), description: plain(reverse.description), parameters: plain(reverse.parameters), execute: typeof reverse.execute };

    const validate = (args: unknown): string | null => {
      try {
        validateToolArguments(reverse as never, { type: "toolCall", id: "probe", name: "reverse", arguments: args as never });
        return null;
      } catch (error) {
        return firstLine(error) + " " + ((error instanceof Error ? error.message : "").split("\n")[1]?.trim() ?? "");
      }
    };
    facts.schema = { accepts: validate({ text: request.probe }), rejectsMissing: validate({}) !== null, rejectsObject: validate({ text: { a: 1 } }) !== null };
    const execute = reverse.execute as (...args: unknown[]) => unknown;
    facts.probe = {
      pi: await call(() => execute.call(reverse, "probe-call", { text: request.probe }, undefined, undefined, {})),
      ours: await call(() => execute.call(reverse, { text: request.probe })),
    };

    try {
      facts.session = await inSession(request, loaded, dir);
    } catch (error) {
      facts.sessionError = firstLine(error);
    }
    return facts;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** 真实的 AgentSession：模型依次用每段输入调用 reverse，再收尾；返回 Pi 会话记录里的工具结果。 */
async function inSession(request: Request, loaded: LoadExtensionsResult, dir: string): Promise<NonNullable<PiFacts["session"]>> {
  const turns = [
    ...request.inputs.map((text, index) => ({ toolCalls: [{ id: `call_${index + 1}`, name: "reverse", arguments: { text } }] })),
    { text: "倒好了。" },
  ];
  const server = await startServer(turns);
  try {
    const provider = { baseUrl: server.openaiBaseUrl, api: "openai-completions", apiKey: "sk-test", models: [{ id: "scripted", contextWindow: 128_000, maxTokens: 4096 }] };
    writeFileSync(path.join(dir, "models.json"), JSON.stringify({ providers: { scripted: provider } }));
    const modelRuntime = await ModelRuntime.create({ authPath: path.join(dir, "auth.json"), modelsPath: path.join(dir, "models.json") });
    const model = modelRuntime.getModel("scripted", "scripted");
    if (!model) throw new Error("models.json 里的 scripted 模型没有加载");
    const sessionManager = SessionManager.inMemory(dir);
    const { session } = await createAgentSession({
      cwd: dir,
      agentDir: dir,
      model,
      thinkingLevel: "off",
      modelRuntime,
      resourceLoader: resources(loaded),
      noTools: "builtin", // 不要内置工具（read、bash……），扩展的工具照常启用
      sessionManager,
      settingsManager: SettingsManager.inMemory(PI_SESSION_SETTINGS),
    });
    try {
      await session.prompt("把这几段文字倒过来");
    } finally {
      session.dispose();
    }
    const messages = sessionManager
      .getEntries()
      .flatMap((entry) => (entry.type === "message" ? [entry.message as unknown as Record<string, unknown>] : []));
    const calls = messages.flatMap((message) =>
      message.role === "assistant" && Array.isArray(message.content)
        ? (message.content as Array<Record<string, unknown>>).filter((block) => block.type === "toolCall" && block.name === "reverse")
        : [],
    );
    const results = messages.filter((message) => message.role === "toolResult");
    const last = messages.at(-1);
    const final =
      last?.role === "assistant" && Array.isArray(last.content)
        ? (last.content as Array<Record<string, unknown>>).map((block) => (block.type === "text" ? String(block.text) : "")).join("")
        : undefined;
    return {
      calls: calls.map((block) => {
        const result = results.find((message) => message.toolCallId === block.id);
        return { arguments: plain(block.arguments), ...(result ? { result: { content: plain(result.content), isError: result.isError === true, details: plain(result.details) } } : {}) };
      }),
      ...(final !== undefined ? { final } : {}),
      requests: server.requests.length,
    };
  } finally {
    await server.close();
  }
}

/** 只有学习者那一个扩展，别的资源（技能、提示模板、AGENTS.md）一概没有。 */
function resources(loaded: LoadExtensionsResult): ResourceLoader {
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

// 作为子进程入口运行时：读参数、跑、把结果写成一行
if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const request = JSON.parse(process.argv[2] ?? "{}") as Request;
  const facts: PiFacts = await runGraduation(request).catch((error: unknown) => ({ loadErrors: [`Pi 这一边出错：${firstLine(error)}`], tools: [] }) satisfies PiFacts);
  if (request.gate) facts.gate = await runGate(request.gate).catch((error: unknown) => ({ loadErrors: [`Pi 这一边出错：${firstLine(error)}`] }));
  process.stdout.write(`\n${RESULT_MARK}${JSON.stringify(facts)}\n`, () => process.exit(0));
}
