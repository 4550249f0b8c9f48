/**
 * 练习 2 的参考答案（第 8.1 章）：让假模型回答「我刚才说了什么」。
 * 上一句用户原话不是 messages.at(-2)——那是上一条助手回答；要先只留用户消息，再取倒数第二条。
 */

import type { Rule } from "../src/rules.js";

export const RECALL_RULES: Rule[] = [
  {
    on: "我刚才说了什么",
    reply: (context) => {
      const said = context.messages.filter((message) => message.role === "user");
      // 最后一条是这次的提问本身，上一句是它前面那条
      const previous = said.at(-2);
      return previous ? `你刚才说的是「${previous.content}」。` : "你还什么都没说呢。";
    },
  },
];
