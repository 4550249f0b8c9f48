/**
 * 剧本驱动的假模型（FakeModel）。
 *
 * 按 rules.ts 的剧本挑一条回复，一次性整条交回。
 * 全程离线、结果确定，所以每一步的 demo 都能和 golden 文件逐字比对。
 */

import { pickRule, RULES, type Rule } from "./rules.js";
import type { CompleteFn } from "./types.js";

export interface FakeModelOptions {
  /** 剧本，第一条命中的规则生效。默认用 rules.ts 里的 RULES。 */
  rules?: Rule[];
}

/** 创建一个假模型。返回值就是一个 CompleteFn，上层分不出它是真是假。 */
export function createFakeModel(options: FakeModelOptions = {}): CompleteFn {
  const { rules = RULES } = options;
  return (context) => {
    const rule = pickRule(rules, context);
    // 剧本里连兜底规则都没有时，也要给出一条回复，而不是让程序崩溃。
    const text = !rule ? "（剧本是空的）" : typeof rule.reply === "function" ? rule.reply(context) : rule.reply;
    return { role: "assistant", content: [{ type: "text", text }] };
  };
}
