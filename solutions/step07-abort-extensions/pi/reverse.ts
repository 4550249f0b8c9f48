/**
 * 毕业练习的参考答案：练习 7 的 reverse 扩展，移植到真正的 Pi 1.6.0（@earendil-works/pi-coding-agent）的 ExtensionAPI。
 * 和练习 7 的写法逐项对照（为什么这样改）见 docs/deep/8.5-pi-graduation.md。
 */

import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";

export default function reverseExtension(pi: ExtensionAPI): void {
  pi.registerTool({
    name: "reverse",
    label: "倒过来", // 给界面看的名字：Pi 的工具定义必须有
    description: "把一段文本倒过来。",
    // 普通的 JSON Schema 就行（Pi 也接受 TypeBox 造出来的 schema）
    parameters: {
      type: "object",
      properties: { text: { type: "string", description: "要倒过来的文本" } },
      required: ["text"],
    },
    // 第一个参数是这次调用的 id，参数在第二个；signal、onUpdate、ctx 这里用不上
    async execute(_toolCallId, params) {
      const text = (params as { text: string }).text;
      // 按字符（码点）倒序：split("") 会把 😀 拆成两半
      const reversed = [...text].reverse().join("");
      // 结果是内容块数组，外加给界面和日志看的 details
      return { content: [{ type: "text", text: reversed }], details: { characters: [...text].length } };
    },
  });

  // 日志那一半（可选）：Pi 的 on() 返回一个取消订阅的函数
  pi.on("tool_execution_end", (event) => {
    if (event.toolName === "reverse") console.error(`[扩展] reverse 用了 ${event.durationMs ?? "?"} ms`);
  });
}
