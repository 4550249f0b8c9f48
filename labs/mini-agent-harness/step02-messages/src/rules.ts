/**
 * 假模型的剧本：一张按顺序匹配的规则表，第一条命中的规则生效。
 *
 * 规则看的是上下文里的最后一条消息：用户消息包含 on 就命中。
 * 回复可以是固定文本，也可以由整个上下文算出来——这就是每次都要把完整历史交给模型的原因。
 * 想让假模型学会一句新话，就在兜底规则之前加一条。
 * 换成真实模型（step08）之后，这张表就用不上了：那时是模型自己决定说什么。
 */

import type { Context } from "./types.js";

/** 剧本。 */
export const RULES: Rule[] = [
  // ── 记忆：回答要用到更早的历史 ──
  { on: "我叫什么", reply: (context) => recallName(context) },
  { on: "我叫", reply: (context) => `你好，${after(lastText(context), "我叫")}！我记住了。` },
  // ── 兜底：剧本里没有的话 ──
  { on: "", reply: "（离线假模型）这句话不在剧本里。试试：我叫小明 / 我叫什么。" },
];

/** 一条规则。 */
export interface Rule {
  /** 触发词：最后一条消息包含它就命中；空字符串匹配一切，用作兜底。 */
  on: string;
  /** 回复文本：固定文本，或由整个上下文算出来。 */
  reply: string | ((context: Context) => string);
}

/** 找到第一条命中的规则。 */
export function pickRule(rules: Rule[], context: Context): Rule | undefined {
  const trigger = triggerOf(context);
  return rules.find((rule) => trigger.includes(rule.on));
}

/** 最后一条消息的「触发文本」：用户原话。 */
export function triggerOf(context: Context): string {
  const last = context.messages.at(-1);
  return last?.role === "user" ? last.content : "";
}

/** 最近一条用户消息的原话。 */
export function lastText(context: Context): string {
  const user = context.messages.findLast((message) => message.role === "user");
  return user?.role === "user" ? user.content : "";
}

/** 取 marker 之后的文字，去掉首尾空白。 */
export function after(text: string, marker: string): string {
  const index = text.indexOf(marker);
  return index < 0 ? "" : text.slice(index + marker.length).trim();
}

/** 从更早的历史里找「我叫 X」：模型看得见整个上下文，所以它「记得」。 */
function recallName(context: Context): string {
  for (const message of [...context.messages].reverse()) {
    if (message.role !== "user" || message.content.includes("我叫什么")) continue;
    const name = after(message.content, "我叫");
    if (name) return `你叫${name}。`;
  }
  return "你还没告诉我你的名字。";
}
