/**
 * 练习 3（第 8.2 章）：写一个消费模型流、顺便做统计的函数 measureStream。
 *
 * 检查器把步骤自己的假模型吐出的流、以及几条手工造的流交给它，核对统计结果。
 * 用 text.length 数字符的写法过不了 emoji 那一项；只认 done 的写法过不了「没有 done 的流」那一项。
 */

import { attempt, expectThat, importFrom, loadExport, same, show } from "./helpers.ts";
import { generatedName, type Random } from "./random.ts";
import type { Check, Exercise } from "./types.ts";

interface StreamEvent {
  type: string;
  delta?: string;
  message?: unknown;
}
interface Stats {
  text?: unknown;
  deltas?: unknown;
  chars?: unknown;
  stopReason?: unknown;
  errorMessage?: unknown;
}
type Measure = (stream: AsyncIterable<StreamEvent>) => Promise<Stats>;
interface Rule {
  on: string;
  reply: unknown;
  error?: string;
}

const FILE = "exercises/stream-stats.ts";

async function* fromList(events: StreamEvent[]): AsyncGenerator<StreamEvent> {
  for (const event of events) yield event;
}

const pick = (stats: Stats) => ({ text: stats.text, deltas: stats.deltas, chars: stats.chars, stopReason: stats.stopReason });

const doneEvent = (text: string, stopReason: string, errorMessage?: string): StreamEvent => ({
  type: "done",
  message: { role: "assistant", content: text ? [{ type: "text", text }] : [], stopReason, ...(errorMessage !== undefined ? { errorMessage } : {}) },
});

/** 随机用例：固定用例代表的几类流（正常结束、中途失败、没有 done、空回复）各来一条，片段里混着汉字、字母和 BMP 之外的字符。 */
function generated(random: Random): Array<{ why: string; deltas: string[]; end: "stop" | "error" | "none" }> {
  const pieces = (count: number) => Array.from({ length: count }, () => random.text(random.int(1, 4)));
  return [
    { why: "正常结束", deltas: [...pieces(random.int(2, 5)), random.text(1, ["astral"])], end: "stop" },
    { why: "中途失败", deltas: pieces(random.int(1, 4)), end: "error" },
    { why: "没有 done 就结束", deltas: pieces(random.int(1, 3)), end: "none" },
    { why: "一个字都没说就结束了", deltas: [], end: "stop" },
  ];
}

async function check(stepDir: string, random: Random): Promise<Check[]> {
  const loaded = await loadExport<Measure>(stepDir, FILE, "measureStream", "function");
  if (loaded.value === undefined) return [loaded.check];
  const measure = loaded.value;
  const checks: Check[] = [loaded.check];
  const { createFakeModel, tokenize } = await importFrom<{
    createFakeModel(options?: { delayMs?: number }): (context: unknown) => AsyncIterable<StreamEvent>;
    tokenize(text: string): string[];
  }>(stepDir, "src/fake-model.ts");
  const { RULES } = await importFrom<{ RULES: Rule[] }>(stepDir, "src/rules.ts");
  const model = createFakeModel({ delayMs: 0 });
  const ask = (text: string) => model({ messages: [{ role: "user", content: text }] });
  const ruleFor = (on: string): Rule | undefined => RULES.find((rule) => rule.on === on);

  // 1. 假模型的一次正常回复（剧本里没有这条规则就如实报告，不悄悄少查一项）
  const long = ruleFor("说个长的");
  if (!(long && typeof long.reply === "string")) checks.push({ name: "步骤的剧本里有「说个长的」这条规则", ok: false, saw: "src/rules.ts 里找不到它（src/ 被改过？）" });
  if (long && typeof long.reply === "string") {
    const reply = long.reply;
    const name = "假模型回答「说个长的」：文字、片段数、字符数、stop";
    checks.push(...(await attempt(name, async () => same(name, pick(await measure(ask("说个长的"))), { text: reply, deltas: tokenize(reply).length, chars: [...reply].length, stopReason: "stop" }))));
  }

  // 2. 假模型的一次中途失败
  const broken = ruleFor("出个错");
  if (!(broken && typeof broken.reply === "string" && broken.error)) checks.push({ name: "步骤的剧本里有「出个错」这条规则", ok: false, saw: "src/rules.ts 里找不到它（src/ 被改过？）" });
  if (broken && typeof broken.reply === "string" && broken.error) {
    const reply = broken.reply;
    const name = "假模型回答「出个错」：已吐出的半句照样算进去，stopReason 是 error，带上错误原因";
    checks.push(
      ...(await attempt(name, async () => {
        const stats = await measure(ask("出个错"));
        return same(name, { ...pick(stats), errorMessage: stats.errorMessage }, { text: reply, deltas: tokenize(reply).length, chars: [...reply].length, stopReason: "error", errorMessage: broken.error });
      })),
    );
  }

  // 3. emoji：一个字符占两个 UTF-16 单元
  const emojiName = "片段「你好」「😀」「!」：字符数是 4（😀 算一个字符）";
  const emoji = [
    { type: "text_delta", delta: "你好" },
    { type: "text_delta", delta: "😀" },
    { type: "text_delta", delta: "!" },
    { type: "done", message: { role: "assistant", content: [{ type: "text", text: "你好😀!" }], stopReason: "stop" } },
  ];
  checks.push(...(await attempt(emojiName, async () => same(emojiName, pick(await measure(fromList(emoji))), { text: "你好😀!", deltas: 3, chars: 4, stopReason: "stop" }))));

  // 4. 违反契约、没有 done 就结束的流：按失败算，而不是留空
  const noDoneName = "流没有 done 就结束了：按失败算，stopReason 是 error，并说明原因";
  checks.push(
    ...(await attempt(noDoneName, async () => {
      const stats = await measure(fromList([{ type: "text_delta", delta: "半句" }]));
      const ok = stats.text === "半句" && stats.deltas === 1 && stats.chars === 2 && stats.stopReason === "error" && typeof stats.errorMessage === "string" && stats.errorMessage.trim() !== "";
      return expectThat(noDoneName, ok, show(stats), '{"text":"半句","deltas":1,"chars":2,"stopReason":"error","errorMessage":"<一句非空的原因>"}');
    })),
  );

  // 5. 随机用例
  const fresh = generated(random);
  for (const [index, { why, deltas, end }] of fresh.entries()) {
    const text = deltas.join("");
    const errorMessage = end === "error" ? `模拟的失败 ${random.id(6)}` : undefined;
    const events: StreamEvent[] = [...deltas.map((delta) => ({ type: "text_delta", delta })), ...(end === "none" ? [] : [doneEvent(text, end, errorMessage)])];
    const name = `${generatedName(index + 1, fresh.length, why)}：片段 ${show(deltas)}`;
    const expected = { text, deltas: deltas.length, chars: [...text].length, stopReason: end === "stop" ? "stop" : "error" };
    checks.push(
      ...(await attempt(name, async () => {
        const stats = await measure(fromList(events));
        if (end === "none") {
          const ok = same(name, pick(stats), expected).ok && typeof stats.errorMessage === "string" && stats.errorMessage.trim() !== "";
          return expectThat(name, ok, show(stats), `${show(expected).slice(0, -1)},"errorMessage":"<一句非空的原因>"}`);
        }
        return end === "error" ? same(name, { ...pick(stats), errorMessage: stats.errorMessage }, { ...expected, errorMessage }) : same(name, pick(stats), expected);
      })),
    );
  }
  return checks;
}

export const exercise03: Exercise = {
  id: 3,
  step: "step03-streaming",
  chapter: "8.2",
  title: "写一个统计模型流的消费者 measureStream",
  file: FILE,
  hints: [
    "消费一次流就是 for await 遍历事件：text_delta 一段段累加，done 里那条消息的 stopReason 说明是怎么结束的。数「字符」时要想一想 JavaScript 字符串的 length 数的是什么。",
    "照着 src/render.ts 的 renderStream 写：它也是遍历事件、记下最后的消息，还处理了「流没给 done」的情形。新文件 exercises/stream-stats.ts 里 import type { StreamEvent } from \"../src/types.js\"。",
    "export async function measureStream(stream: AsyncIterable<StreamEvent>) {\n  let text = \"\", deltas = 0, message;\n  for await (const event of stream) { /* text_delta：累加、计数；done：记下 event.message */ }\n  // 没有 done：当作 { stopReason: \"error\", errorMessage: \"…\" }\n  return { text, deltas, chars: /* 按码点数：[...text] */, stopReason: …, errorMessage: … };\n}",
  ],
  check,
};
