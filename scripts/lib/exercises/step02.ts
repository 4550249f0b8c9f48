/**
 * 练习 2（第 8.1 章）：给剧本加规则，让假模型回答「我刚才说了什么」。
 *
 * 学习者在 exercises/recall-rule.ts 里导出 RECALL_RULES；检查器把它们放在步骤自己的 RULES 前面，
 * 像 main.ts 那样一问一答地累积上下文。context.messages.at(-2) 是上一条「助手」消息，
 * 不是上一句用户原话——这种写法过不了「中间隔着回答」那一项。
 */

import { attempt, importFrom, loadExport, same } from "./helpers.ts";
import { generatedName, type Random } from "./random.ts";
import type { Check, Exercise } from "./types.ts";

interface Rule {
  on: string;
  reply: unknown;
}
interface Message {
  role: string;
  content: unknown;
}
type CompleteFn = (context: { messages: Message[] }) => { content: Array<{ text: string }> };

const FILE = "exercises/recall-rule.ts";

/** 像 main.ts 一样：每句话先进上下文，再把整个上下文交给模型，回答也进上下文。返回最后一句回答。 */
function converse(model: CompleteFn, inputs: string[]): string {
  const context = { messages: [] as Message[] };
  let answer = "";
  for (const input of inputs) {
    context.messages.push({ role: "user", content: input });
    const reply = model(context);
    context.messages.push(reply as unknown as Message);
    answer = reply.content.map((part) => part.text).join("");
  }
  return answer;
}

/** 一句随机的话：汉字、字母混着来，不会碰巧是「我刚才说了什么」。 */
const phrase = (random: Random): string => random.text(random.int(3, 9), ["cjk", "ascii"]);

async function check(stepDir: string, random: Random): Promise<Check[]> {
  const loaded = await loadExport<Rule[]>(stepDir, FILE, "RECALL_RULES", "object");
  if (loaded.value === undefined) return [loaded.check];
  const extra = loaded.value;
  const { RULES } = await importFrom<{ RULES: Rule[] }>(stepDir, "src/rules.ts");
  const { createFakeModel } = await importFrom<{ createFakeModel(options?: { rules?: Rule[] }): CompleteFn }>(stepDir, "src/fake-model.ts");
  const model = createFakeModel({ rules: [...extra, ...RULES] });
  const builtin = createFakeModel({ rules: RULES });
  const checks: Check[] = [loaded.check];

  const cases: Array<[string, string[], string]> = [
    ["只说过一句话时，答出那一句", ["今天天气不错", "我刚才说了什么"], "你刚才说的是「今天天气不错」。"],
    ["中间隔着助手的回答、前面还有更早的话时，答出紧挨着的上一句", ["我叫小明", "你好", "我刚才说了什么"], "你刚才说的是「你好」。"],
    ["一开口就问，没有上一句", ["我刚才说了什么"], "你还什么都没说呢。"],
  ];
  // 随机用例：前面说过的句数、每句话都是现造的
  const earlier = [random.int(1, 2), random.int(3, 5)].map((count) => Array.from({ length: count }, () => phrase(random)));
  earlier.forEach((said, index) => {
    cases.push([generatedName(index + 1, earlier.length + 1, `先说了 ${said.length} 句`), [...said, "我刚才说了什么"], `你刚才说的是「${said.at(-1)}」。`]);
  });
  for (const [name, inputs, expected] of cases) {
    checks.push(...(await attempt(name, async () => same(`${name}：${inputs.join(" → ")}`, converse(model, inputs), expected))));
  }
  // 新规则不能抢走剧本里已有的话：比较加规则前后的回答
  const untouched: Array<[string, string[]]> = [
    ["「我叫小红」仍然由原来的规则回答", ["我叫小红"]],
    ["「我叫什么」仍然记得名字", ["我叫小明", "我叫什么"]],
    ["剧本里没有的话仍然落到兜底规则", ["随便聊聊"]],
    [generatedName(3, 3, "原有规则照旧"), [`我叫${random.text(2, ["cjk"])}`, phrase(random), "我叫什么"]],
  ];
  for (const [name, inputs] of untouched) {
    checks.push(...(await attempt(name, async () => same(`${name}：${inputs.join(" → ")}`, converse(model, inputs), converse(builtin, inputs)))));
  }
  return checks;
}

export const exercise02: Exercise = {
  id: 2,
  step: "step02-messages",
  chapter: "8.1",
  title: "教假模型回答「我刚才说了什么」",
  file: FILE,
  hints: [
    "模型没有记忆，上下文就是记忆：回复函数拿到的是整个上下文，上一句话就在 context.messages 里。想清楚「上一句用户原话」在数组的哪里——它不一定是倒数第二条。",
    "规则的形状看 src/rules.ts 的 Rule 接口和 recallName 函数（它也是在历史里往回找）。新文件 exercises/recall-rule.ts 里 import type { Rule } from \"../src/rules.js\"，导出 RECALL_RULES 数组；检查器会把它放在 RULES 前面。",
    "export const RECALL_RULES: Rule[] = [\n  { on: \"我刚才说了什么\", reply: (context) => {\n      // 1. 只留 role 为 \"user\" 的消息\n      // 2. 最后一条是这次的提问，上一句是它前面那条\n      // 3. 没有上一句时说「你还什么都没说呢。」\n  } },\n];",
  ],
  check,
};
