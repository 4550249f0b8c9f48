/**
 * 练习 10（第 8.8 章）：写一个扩展 extensions/protected-paths.ts，用 tool_call 钩子挡住 write、edit 对受保护路径的改动：
 * 文件名是 .env，或者在 .git/、node_modules/ 目录里。别的路径、别的工具（read_file 只读）照常。
 *
 * 检查器像 npm start 一样加载它（没有终端：ctx.hasUI 为 false），每个用例一个新的小项目（里面有 .env、.git/config、
 * node_modules/x/index.js、src/app.ts），经步骤自己的工具注册表真的调用一次 write / edit / read_file，
 * 看闸门怎么回答、文件变没变。Pi 自带示例的子串比较（path.includes(".env")）栽在 .envrc 上；
 * 不先按项目目录展开路径的写法栽在 sub/../.env、src/../.git/config 上；只背下固定路径的查表写法栽在随机用例上。
 * 同一批用例也交给真正的 Pi 1.6.0（毕业练习 npm run exercise -- pi，graduation.ts）。
 */

import fs from "node:fs";
import os from "node:os";
import path from "node:path";

import { attempt, errorText, expectThat, importFrom, show } from "./helpers.ts";
import { generatedName, type Random } from "./random.ts";
import type { Check, Exercise } from "./types.ts";

export const FILE = "extensions/protected-paths.ts";
const NAME = path.posix.basename(FILE);

/** 每个用例的小项目里先放好的文件；edit 的 oldText 取它们的第一行。 */
export const SEEDED: Readonly<Record<string, string>> = {
  ".env": "SECRET=seed\n",
  ".git/config": "[core]\n\tbare = false\n",
  "node_modules/x/index.js": "module.exports = 1;\n",
  "src/app.ts": "export const app = 1;\n",
};

/** 一个用例：哪个工具、模型给的路径、闸门该不该拦、这一项为什么存在。tool 用我们的名字（Pi 里 read_file 叫 read）。 */
export interface GateCase {
  tool: "write" | "edit" | "read_file";
  path: string;
  block: boolean;
  why: string;
  /** 现造的用例：名字以「随机用例」开头。 */
  generated?: string;
}

const FIXED: GateCase[] = [
  { tool: "write", path: ".env", block: true, why: "项目根目录的 .env" },
  { tool: "write", path: "./.env", block: true, why: "同一个文件，前面多了 ./" },
  { tool: "write", path: "sub/../.env", block: true, why: "绕一圈回到 .env" },
  { tool: "edit", path: ".env", block: true, why: "edit 也会改文件" },
  { tool: "write", path: ".git/config", block: true, why: ".git/ 里的文件" },
  { tool: "edit", path: "src/../.git/config", block: true, why: "绕进 .git/" },
  { tool: "write", path: "node_modules/x/index.js", block: true, why: "node_modules/ 里的文件" },
  { tool: "read_file", path: ".env", block: false, why: "只读不写：不拦" },
  { tool: "write", path: "src/app.ts", block: false, why: "普通源文件" },
  { tool: "edit", path: "src/app.ts", block: false, why: "普通源文件" },
  { tool: "write", path: ".envrc", block: false, why: "名字以 .env 开头，但不是 .env" },
  { tool: "write", path: ".github/workflows/ci.yml", block: false, why: "以 .git 开头，但不是 .git/" },
  { tool: "write", path: "docs/node_modules.md", block: false, why: "名字里有 node_modules，但不是那个目录" },
  { tool: "write", path: "node_modules/../src/app.ts", block: false, why: "写着 node_modules，展开后是 src/app.ts" },
];

/** 随机用例：固定用例代表的几类路径各来一条，目录名、文件名每次不同。 */
function generated(random: Random): GateCase[] {
  const word = (): string => random.text(random.int(2, 6), ["ascii", "cjk"]);
  const letters = (): string => random.text(random.int(2, 4), ["ascii"]).toLowerCase();
  const cases: Array<Omit<GateCase, "generated">> = [
    { tool: "write", path: `${word()}/../.env`, block: true, why: "绕一圈回到 .env" },
    { tool: random.pick(["write", "edit"] as const), path: `${word()}/../.git/config`, block: true, why: "绕进 .git/" },
    { tool: "write", path: `node_modules/${word()}/${letters()}.js`, block: true, why: "node_modules/ 里现造的文件" },
    { tool: "write", path: `${word()}/${letters()}.ts`, block: false, why: "现造的普通文件" },
    { tool: "write", path: `.env${letters()}`, block: false, why: "名字以 .env 开头，但不是 .env" },
  ];
  return cases.map((c, index) => ({ ...c, generated: generatedName(index + 1, cases.length, c.why) }));
}

/** 全部用例（固定的在前）：毕业练习拿同一批交给 Pi。 */
export const gateCases = (random: Random): GateCase[] => [...FIXED, ...generated(random)];

/** 用例里的工具调用的参数（两边的 write、edit、read 参数一样）。edit 把文件的第一行换掉。 */
export function argumentsOf(c: GateCase): Record<string, unknown> {
  if (c.tool === "read_file") return { path: c.path };
  if (c.tool === "write") return { path: c.path, content: `写入：${c.path}\n` };
  const seeded = SEEDED[path.posix.normalize(c.path)];
  const oldText = seeded?.split("\n")[0] ?? "（这个文件本来不存在）";
  return { path: c.path, edits: [{ oldText, newText: `${oldText} // 改过了` }] };
}

/** 用例的名字：报告里一行，说出调用和期望。 */
export const caseName = (c: GateCase): string => {
  const call = `${c.tool} ${show(c.path)}`;
  const verdict = c.block ? "被阻止，文件不动" : "放行，工具照常执行";
  return c.generated ? `${c.generated}：${call} ${verdict}` : `${call} ${verdict}（${c.why}）`;
};

interface ToolResult {
  content: string;
  isError?: boolean;
}
interface ToolCall {
  type: "toolCall";
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}
type Gate = (call: ToolCall, ctx: { cwd: string }) => Promise<string | undefined>;
interface Registry {
  execute(call: ToolCall, ctx: { cwd: string; beforeToolCall?: Gate }): Promise<ToolResult>;
}
interface Host {
  toolCalls: { gate(): Gate };
}
interface HostModule {
  ExtensionHost: new (tools: Registry) => Host;
  loadExtension(file: string, host: Host): Promise<void>;
}

/** 一个新的小项目，放好 SEEDED 里的文件。 */
function project(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "exercise-10-"));
  for (const [file, content] of Object.entries(SEEDED)) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), content);
  }
  return dir;
}

const contentOf = (file: string): string | undefined => (fs.existsSync(file) ? fs.readFileSync(file, "utf8") : undefined);

/** 在一个新的小项目里调用一次，闸门的回答与文件的前后都记下来，比对期望。 */
async function runCase(c: GateCase, tools: Registry, host: Host, reasons: string[]): Promise<Check> {
  const name = caseName(c);
  const dir = project();
  try {
    const target = path.resolve(dir, c.path);
    const before = contentOf(target);
    const gate = host.toolCalls.gate();
    let verdict: string | undefined;
    const beforeToolCall: Gate = async (call, ctx) => (verdict = await gate(call, ctx));
    const args = argumentsOf(c);
    const result = await tools.execute({ type: "toolCall", id: "check", name: c.tool, arguments: args }, { cwd: dir, beforeToolCall });
    const after = contentOf(target);
    if (verdict !== undefined && verdict.startsWith(`扩展 ${NAME} 的 tool_call 出错`)) {
      return { name, ok: false, saw: `闸门抛出了异常（宿主把它当作阻止）：${verdict}` };
    }
    if (c.block) {
      if (verdict === undefined) {
        const changed = after === before ? "" : after === undefined ? "，文件没了" : `，文件变成了 ${show(after)}`;
        return { name, ok: false, saw: `闸门放行了：${c.tool} 照常执行${changed}（工具结果 ${show(result.content)}）` };
      }
      reasons.push(verdict);
      return expectThat(name, after === before, `闸门阻止了，可文件变了：${show(after)}`);
    }
    if (verdict !== undefined) return { name, ok: false, saw: `闸门阻止了：${show(verdict)}` };
    if (result.isError) return { name, ok: false, saw: `闸门放行了，工具却出错：${result.content}（检查器的问题，请报告）` };
    const done = c.tool === "read_file" ? result.content === before : after !== before;
    return expectThat(name, done, `工具结果 ${show(result.content)}，文件 ${show(after)}`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true, maxRetries: 10 });
  }
}

async function check(stepDir: string, random: Random): Promise<Check[]> {
  const checks: Check[] = [];
  const { createBuiltinTools } = await importFrom<{ createBuiltinTools(): Registry }>(stepDir, "src/tools/index.ts");
  const hostModule = await importFrom<HostModule>(stepDir, "src/extensions.ts");
  const tools = createBuiltinTools();
  const host = new hostModule.ExtensionHost(tools);

  const loadName = "宿主能加载这个扩展（默认导出一个工厂函数）";
  try {
    await hostModule.loadExtension(path.join(stepDir, FILE), host);
    checks.push({ name: loadName, ok: true });
  } catch (error) {
    checks.push({ name: loadName, ok: false, saw: `加载失败：${errorText(error)}` });
    return checks;
  }

  const reasons: string[] = [];
  for (const c of gateCases(random)) checks.push(...(await attempt(caseName(c), () => runCase(c, tools, host, reasons), 15_000)));

  // 阻止时给了理由：模型收到的错误结果就是这句话，没有它模型只知道「不行」
  if (reasons.length > 0) {
    const fallback = reasons.find((reason) => reason.startsWith(`扩展 ${NAME} 阻止了`));
    checks.push(expectThat("阻止时给出理由（reason），模型收到的错误结果就是它", fallback === undefined, `没有给 reason，宿主代答：${show(fallback)}`));
  }
  return checks;
}

export const exercise10: Exercise = {
  id: 10,
  step: "step10-coding-tools",
  chapter: "8.8",
  title: "写一个扩展，不许 write、edit 碰 .env、.git/、node_modules/",
  file: FILE,
  hints: [
    "和 permission-gate.ts 一样用 pi.on(\"tool_call\")：只看 write 和 edit，其余一律放行（返回 undefined）。模型给的路径不可信也不规范：./.env、sub/../.env 都是 .env，.envrc、.github/ 却不是——先把路径展开成真正指向的那个文件，再按一段一段的名字比，而不是比子串。",
    "照着 extensions/permission-gate.ts 的形状写；事件的形状见 src/tool-call.ts 的 ToolCallEvent（路径在 event.input.path）、ExtensionContext（项目目录在 ctx.cwd）。node:path 的 path.resolve(ctx.cwd, 路径) 展开 . 和 ..，path.relative(ctx.cwd, …).split(path.sep) 切成一段段的名字。不要 import 运行时的东西（import type 可以）：同一个文件还要原样放进 Pi。",
    "export default function (pi: ExtensionAPI): void {\n  pi.on(\"tool_call\", (event, ctx) => {\n    if (event.toolName !== \"write\" && event.toolName !== \"edit\") return undefined;\n    const parts = path.relative(ctx.cwd, path.resolve(ctx.cwd, String(event.input.path))).split(path.sep);\n    // 最后一段是 .env，或者前面某一段是 .git、node_modules → return { block: true, reason: `…${event.input.path}…` }\n    return undefined;\n  });\n}",
  ],
  check,
};
