/**
 * 练习 4 的参考答案（第 8.3 章上半）：一个自己校验参数的工具。
 * step04 还没有 Schema 校验，模型给的参数什么样都可能：先查，再算。
 */

import type { ToolDefinition } from "../src/tools/types.js";

export const maxTool: ToolDefinition = {
  name: "max",
  description: "找出一组数里最大的那个",
  parameters: {
    type: "object",
    properties: { numbers: { type: "array", items: { type: "number" }, description: "至少一个数" } },
    required: ["numbers"],
  },
  execute(args) {
    const numbers = args.numbers;
    if (!Array.isArray(numbers)) return { content: "参数 numbers 必须是一个数组", isError: true };
    if (numbers.length === 0) return { content: "numbers 是空的：空数组没有最大值", isError: true };
    const bad = numbers.find((value) => typeof value !== "number" || !Number.isFinite(value));
    if (bad !== undefined) return { content: `numbers 里有不是数字的元素：${JSON.stringify(bad)}`, isError: true };
    // 不从 0 开始比：全是负数时最大值小于 0
    return { content: String(Math.max(...(numbers as number[]))) };
  },
};
