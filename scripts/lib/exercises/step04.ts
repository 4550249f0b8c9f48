/**
 * 练习 4（第 8.3 章上半）：写一个自己校验参数的工具 max（找出一组数里最大的那个）。
 *
 * step04 还没有参数校验（那是 step05 的事），模型给的参数什么样都可能有，工具只能自己把关。
 * 检查器用步骤自己的 executeTool 调用它，再把它放进一次 runAgentLoop。
 * 直接 Math.max(...numbers) 的写法过不了空数组（得到 -Infinity）和混进字符串的那两项。
 */

import { attempt, expectThat, importFrom, loadExport, same, show } from "./helpers.ts";
import { generatedName, type Random } from "./random.ts";
import type { Check, Exercise } from "./types.ts";

interface Tool {
  name?: unknown;
  description?: unknown;
  parameters?: unknown;
  execute?: unknown;
}
interface ToolResult {
  role: string;
  content: string;
  isError?: boolean;
}
interface Rule {
  on: string;
  reply: unknown;
  toolCall?: { name: string; arguments: (input: string) => Record<string, unknown> };
}
interface LoopEvent {
  type: string;
  message?: { role: string; content?: unknown; isError?: boolean };
}

const FILE = "exercises/max-tool.ts";

/** 随机用例：一组正负混杂的整数、一组全是负的小数、混进一个不是数字的元素、numbers 不是数组。 */
function generated(random: Random): { good: Array<[string, unknown, string, string]>; bad: Array<[string, unknown, string]> } {
  const ints = Array.from({ length: random.int(2, 7) }, () => random.int(-1000, 1000));
  const negatives = Array.from({ length: random.int(2, 6) }, () => -random.int(1, 4000) / 4);
  const mixed: unknown[] = Array.from({ length: random.int(1, 5) }, () => random.int(-50, 50));
  mixed.splice(random.int(0, mixed.length), 0, random.pick<unknown>([String(random.int(0, 99)), null, true, [random.int(0, 9)], { n: random.int(0, 9) }]));
  const notArray = random.pick<unknown>([String(random.int(1, 9)), random.int(1, 99), { first: random.int(1, 9) }, `${random.int(1, 9)} ${random.int(1, 9)}`]);
  const max = (numbers: number[]) => String(Math.max(...numbers));
  return {
    good: [
      ["正负混杂的整数", { numbers: ints }, max(ints), `${generatedName(1, 4, "正负混杂的整数")}：`],
      ["全是负的小数", { numbers: negatives }, max(negatives), `${generatedName(2, 4, "全是负的小数")}：`],
    ],
    bad: [
      ["混进一个不是数字的元素", { numbers: mixed }, `${generatedName(3, 4, "混进一个不是数字的元素")}：`],
      ["numbers 不是数组", { numbers: notArray }, `${generatedName(4, 4, "numbers 不是数组")}：`],
    ],
  };
}

async function check(stepDir: string, random: Random): Promise<Check[]> {
  const loaded = await loadExport<Tool>(stepDir, FILE, "maxTool", "object");
  if (loaded.value === undefined) return [loaded.check];
  const tool = loaded.value;
  const checks: Check[] = [loaded.check];
  const shapeOk = tool.name === "max" && typeof tool.description === "string" && tool.description !== "" && typeof tool.parameters === "object" && tool.parameters !== null && typeof tool.execute === "function";
  checks.push(expectThat("maxTool 是一个完整的工具：name 为 \"max\"，有 description、parameters 与 execute", shapeOk, `name=${show(tool.name)}，description=${show(tool.description)}，parameters=${show(tool.parameters)}，execute 是 ${typeof tool.execute}`));
  if (!shapeOk) return checks;

  const { BUILTIN_TOOLS, executeTool } = await importFrom<{
    BUILTIN_TOOLS: Tool[];
    executeTool(tools: Tool[], call: { type: "toolCall"; id: string; name: string; arguments: unknown }): Promise<ToolResult>;
  }>(stepDir, "src/tools/index.ts");
  const tools = [...BUILTIN_TOOLS, tool];
  const call = (args: unknown) => executeTool(tools, { type: "toolCall", id: "check", name: "max", arguments: args });

  const good: Array<[string, unknown, string, string?]> = [
    ["一组正数", { numbers: [3, 17, 5] }, "17"],
    ["全是负数（最大值不是 0）", { numbers: [-3, -1.5, -7] }, "-1.5"],
    ["只有一个数", { numbers: [42] }, "42"],
  ];
  const fresh = generated(random);
  for (const [why, args, expected, prefix = ""] of [...good, ...fresh.good]) {
    const name = `${prefix}max ${show(args)} 得到 ${expected}（${why}）`;
    checks.push(
      ...(await attempt(name, async () => {
        const result = await call(args);
        return result.isError ? { name, ok: false, saw: `错误结果：${result.content}` } : same(name, result.content, expected);
      })),
    );
  }
  const bad: Array<[string, unknown, string?]> = [
    ["空数组没有最大值", { numbers: [] }],
    ["数组里混进了字符串", { numbers: [1, "9"] }],
    ["numbers 不是数组", { numbers: "1,2,3" }],
    ["缺少 numbers", {}],
  ];
  for (const [why, args, prefix = ""] of [...bad, ...fresh.bad]) {
    const name = `${prefix}max ${show(args)} 返回错误结果，并说明原因（${why}）`;
    checks.push(
      ...(await attempt(name, async () => {
        const result = await call(args);
        return expectThat(name, result.isError === true && result.content.trim() !== "", `${result.isError ? "错误结果" : "正常结果"} ${show(result.content)}`, "一条 isError 的结果");
      })),
    );
  }

  // 放进循环：模型要求调用，结果回到上下文，第 2 轮收尾
  const loopName = "在 runAgentLoop 里：模型调用 max {\"numbers\":[4,42,8]}，工具结果 42 回到上下文，第 2 轮结束";
  checks.push(
    ...(await attempt(loopName, async () => {
      const { runAgentLoop } = await importFrom<{ runAgentLoop(options: unknown): AsyncIterable<LoopEvent> }>(stepDir, "src/agent-loop.ts");
      const { createFakeModel } = await importFrom<{ createFakeModel(options?: unknown): unknown }>(stepDir, "src/fake-model.ts");
      const { RULES } = await importFrom<{ RULES: Rule[] }>(stepDir, "src/rules.ts");
      const rules: Rule[] = [
        { on: "哪个最大", reply: "我用 max 找一下。", toolCall: { name: "max", arguments: () => ({ numbers: [4, 42, 8] }) } },
        { on: "toolResult:max", reply: "找到了。" },
        ...RULES,
      ];
      const context = { messages: [{ role: "user", content: "4、42、8 哪个最大" }] as unknown[] };
      const events: LoopEvent[] = [];
      for await (const event of runAgentLoop({ streamFn: createFakeModel({ rules }), context, tools, maxTurns: 4 })) events.push(event);
      const result = events.find((event) => event.message?.role === "toolResult")?.message;
      const turns = events.filter((event) => event.type === "turn_end").length;
      return expectThat(loopName, result?.content === "42" && result.isError !== true && turns === 2, `工具结果 ${show(result?.content)}${result?.isError ? "（出错）" : ""}，共 ${turns} 轮`);
    })),
  );
  return checks;
}

export const exercise04: Exercise = {
  id: 4,
  step: "step04-agent-loop",
  chapter: "8.3",
  title: "写一个自己校验参数的工具 max",
  file: FILE,
  hints: [
    "工具出错是信息，不是故障：参数不对时返回 { content: 原因, isError: true }（或者抛异常，executeTool 会替你包装）。step04 还没有 Schema 校验，模型给什么参数都可能，先自己查再计算。",
    "工具的形状见 src/tools/types.ts 的 ToolDefinition；src/tools/calc.ts 是一个完整的例子。新文件 exercises/max-tool.ts 里 import type { ToolDefinition } from \"../src/tools/types.js\"，导出 maxTool。想想 Math.max() 对空数组、对字符串各返回什么。",
    "export const maxTool: ToolDefinition = {\n  name: \"max\", description: \"…\",\n  parameters: { type: \"object\", properties: { numbers: { type: \"array\", items: { type: \"number\" } } }, required: [\"numbers\"] },\n  execute(args) {\n    const numbers = args.numbers;\n    // 不是数组 / 空数组 / 有元素不是有限的数字 → return { content: \"…\", isError: true };\n    return { content: String(/* 最大值 */) };\n  },\n};",
  ],
  check,
};
