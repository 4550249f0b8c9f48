/**
 * 练习 7 的参考答案（第 8.5 章）：一个把文本倒过来的扩展。
 * 只新增这一个文件，src/ 一行不改：宿主不知道 reverse 的存在，它是扩展在加载时注册进来的。
 */

import type { ExtensionAPI } from "../src/extensions.js";

export default function reverseExtension(pi: ExtensionAPI): void {
  pi.registerTool({
    name: "reverse",
    description: "把一段文本倒过来。",
    parameters: {
      type: "object",
      properties: { text: { type: "string", description: "要倒过来的文本" } },
      required: ["text"],
    },
    execute(args) {
      // 按字符（码点）倒序。split("") 按 UTF-16 单元切，会把 😀 这样的字符拆成两半、倒序后变成乱码。
      return { content: [...(args.text as string)].reverse().join("") };
    },
  });
}
