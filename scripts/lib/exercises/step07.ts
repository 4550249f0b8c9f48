/**
 * 练习 7（第 8.5 章）：写一个扩展 extensions/reverse.ts，注册把文本倒过来的 reverse 工具。
 *
 * 检查器像宿主一样加载它、直接调用它注册的工具，再把它放进一次真实的 Agent 循环。
 * 书上的第 4 步让学习者在 src/rules.ts 的 RULES 里加两条规则：加了，循环就用学习者的剧本；
 * 没加（只写了扩展），检查器在步骤的 RULES 前面放上自带的两条规则。src/rules.ts 只许「加」，见 src-unchanged.ts。
 * 会拆坏 emoji 的 split("") 写法过不了「你好😀世界」这一项；只背下这三个输入的查表写法过不了随机用例。
 */

import path from "node:path";

import { LEARNER_ADDITIONS } from "./additions.ts";
import { attempt, errorText, expectThat, importFrom, same, show } from "./helpers.ts";
import { generatedName, type Random } from "./random.ts";
import type { Check, Exercise } from "./types.ts";

interface ToolResult {
  role: "toolResult";
  toolName: string;
  content: string;
  isError?: boolean;
}
interface Registry {
  names(): string[];
  execute(call: { type: "toolCall"; id: string; name: string; arguments: Record<string, unknown> }, ctx: { cwd: string }): Promise<ToolResult>;
}
interface Host {
  loaded: string[];
}
interface HostModule {
  ExtensionHost: new (tools: Registry) => Host;
  loadExtension(file: string, host: Host): Promise<void>;
  withExtensions(events: AsyncIterable<LoopEvent>, host: Host): AsyncIterable<LoopEvent>;
}
interface LoopEvent {
  type: string;
  toolCall?: { name: string; arguments: unknown };
  message?: { role: string; content?: unknown; isError?: boolean };
}
interface Rule {
  on: string;
  reply: string | ((context: unknown) => string);
  toolCall?: { name: string; arguments: (input: string) => Record<string, unknown> };
}

const FILE = "extensions/reverse.ts";

/** 检查器自带的两条剧本规则：让「把 … 倒过来」调用 reverse，工具结果之后收尾。 */
const CHECKER_RULES: Rule[] = [
  {
    on: "倒过来",
    reply: "交给 reverse 工具。",
    toolCall: { name: "reverse", arguments: (input) => ({ text: input.replace(/^把/, "").replace(/倒过来$/, "").trim() }) },
  },
  { on: "toolResult:reverse", reply: "倒好了。" },
];

/** 按码点倒过来：检查器自己的「标准答案」。 */
const reversed = (text: string): string => [...text].reverse().join("");

/** [输入, 期望, 这一项为什么存在] */
const CASES: Array<[string, string, string]> = [
  ["abcdef", "fedcba", "英文"],
  ["Harness 你好", "好你 ssenraH", "中英混排"],
  ["你好😀世界", "界世😀好你", "emoji 不能被拆成两半"],
];

/** 随机用例：固定用例代表的几类输入各来一条，内容每次不同。 */
function generated(random: Random): Array<[string, string]> {
  const cases: Array<[string, string]> = [
    [random.text(random.int(4, 10), ["ascii", "cjk"]) + random.text(1, ["astral"]) + random.text(random.int(2, 6)), "含 BMP 之外的字符"],
    [random.text(random.int(5, 12), ["cjk"]), "全是汉字"],
    [random.text(random.int(6, 14), ["ascii", "cjk"]).replace(/^(.{2})/u, "$1 "), "中英混排，带空格"],
    ["", "空文本"],
    [random.text(random.int(300, 400)), "很长的文本"],
  ];
  return cases;
}

/** 学习者的 RULES 里有没有自己写的、会调用 reverse 的规则。 */
const learnerRoutesReverse = (rules: Rule[]): boolean => rules.some((rule) => rule.toolCall?.name === "reverse");

async function check(stepDir: string, random: Random): Promise<Check[]> {
  const checks: Check[] = [];
  const { createBuiltinTools } = await importFrom<{ createBuiltinTools(): Registry }>(stepDir, "src/tools/index.ts");
  const hostModule = await importFrom<HostModule>(stepDir, "src/extensions.ts");
  const tools = createBuiltinTools();
  const builtins = tools.names();
  const host = new hostModule.ExtensionHost(tools);

  // 1. 像宿主一样加载它
  try {
    await hostModule.loadExtension(path.join(stepDir, FILE), host);
    checks.push({ name: "宿主能加载这个扩展（默认导出一个工厂函数）", ok: true });
  } catch (error) {
    checks.push({ name: "宿主能加载这个扩展（默认导出一个工厂函数）", ok: false, saw: `加载失败：${errorText(error)}` });
    return checks;
  }

  // 2. 注册了 reverse
  const added = tools.names().filter((name) => !builtins.includes(name));
  checks.push(expectThat("扩展注册了名为 reverse 的工具", added.includes("reverse"), `扩展新注册的工具：${added.join("、") || "（没有）"}`));
  if (!added.includes("reverse")) return checks;

  // 3. 直接调用工具
  for (const [input, expected, why] of CASES) {
    const name = `reverse ${show({ text: input })} 得到 ${show(expected)}（${why}）`;
    checks.push(
      ...(await attempt(name, async () => {
        const result = await tools.execute({ type: "toolCall", id: "check", name: "reverse", arguments: { text: input } }, { cwd: stepDir });
        if (result.isError) return { name, ok: false, saw: `工具返回了错误结果：${result.content}` };
        return same(name, result.content, expected);
      })),
    );
  }
  const fresh = generated(random);
  for (const [index, [input, why]] of fresh.entries()) {
    const expected = reversed(input);
    const shown = input.length > 40 ? `${[...input].length} 个字符的文本 ${show([...input].slice(0, 12).join(""))}…` : show({ text: input });
    const name = `${generatedName(index + 1, fresh.length, why)}：reverse ${shown}`;
    checks.push(
      ...(await attempt(name, async () => {
        const result = await tools.execute({ type: "toolCall", id: "check", name: "reverse", arguments: { text: input } }, { cwd: stepDir });
        if (result.isError) return { name, ok: false, saw: `工具返回了错误结果：${result.content}` };
        return same(name, result.content, expected);
      })),
    );
  }

  // 4. 放进一次真实的循环：扩展的观察者与工具都经过宿主。学习者在 src/rules.ts 里加了规则就用它的剧本
  const { RULES } = await importFrom<{ RULES: Rule[] }>(stepDir, "src/rules.ts");
  const own = learnerRoutesReverse(RULES);
  const script = own ? "用你在 src/rules.ts 里加的规则" : "src/rules.ts 里没有调用 reverse 的规则，用检查器自带的两条";
  const name = `一次完整的对话「把 abcdef 倒过来」：第 1 轮调用 reverse，第 2 轮收尾（${script}）`;
  checks.push(
    ...(await attempt(name, async () => {
      const { runAgentLoop } = await importFrom<{ runAgentLoop(options: unknown): AsyncIterable<LoopEvent> }>(stepDir, "src/agent-loop.ts");
      const { createFakeModel } = await importFrom<{ createFakeModel(options?: unknown): unknown }>(stepDir, "src/fake-model.ts");
      const context = { messages: [{ role: "user", content: "把 abcdef 倒过来" }] as unknown[] };
      const rules = own ? RULES : [...CHECKER_RULES, ...RULES];
      const loop = runAgentLoop({ streamFn: createFakeModel({ rules }), context, tools, toolContext: { cwd: stepDir }, maxTurns: 4 });
      const events: LoopEvent[] = [];
      for await (const event of hostModule.withExtensions(loop, host)) events.push(event);
      const call = events.find((event) => event.type === "tool_call")?.toolCall;
      const result = events.find((event) => event.message?.role === "toolResult")?.message;
      const turns = events.filter((event) => event.type === "turn_end").length;
      const ok = call?.name === "reverse" && result?.content === "fedcba" && result.isError !== true && turns === 2;
      const called = call === undefined ? "模型没有调用任何工具（规则放在兜底规则 on: \"\" 之后就永远轮不到）" : `模型调用 ${call.name} ${show(call.arguments)}`;
      return expectThat(name, ok, `${called}，工具结果 ${show(result?.content)}${result?.isError ? "（出错）" : ""}，共 ${turns} 轮`, '模型调用 reverse {"text":"abcdef"}，工具结果 "fedcba"，共 2 轮');
    })),
  );
  return checks;
}

export const exercise07: Exercise = {
  id: 7,
  step: "step07-abort-extensions",
  chapter: "8.5",
  title: "写一个扩展，注册把文本倒过来的 reverse 工具",
  file: FILE,
  additions: LEARNER_ADDITIONS["step07-abort-extensions"],
  hints: [
    "扩展就是一个默认导出的工厂函数：宿主把 pi 交给它，它用 pi.registerTool 往同一个注册表里加工具。「倒过来」要按字符倒，而不是按 UTF-16 单元倒。",
    "照着 extensions/logger.ts 的形状写（它注册了 upper）；工具的形状见 src/tools/types.ts 的 ToolDefinition。字符串的 split(\"\") 按 UTF-16 单元切，😀 占两个单元。让假模型开口调用它：在 src/rules.ts 的 RULES 里、兜底规则正上方，照着「转成大写」那两条 upper 规则加两条（只许加，原有的规则一字不改）。",
    "export default function (pi: ExtensionAPI) {\n  pi.registerTool({ name: \"reverse\", description: …, parameters: { type: \"object\", properties: { text: { type: \"string\" } }, required: [\"text\"] },\n    execute(args) { return { content: /* 用 [...text] 或 Intl.Segmenter 切成字符，再倒序拼回去 */ }; } });\n}",
  ],
  check,
};
