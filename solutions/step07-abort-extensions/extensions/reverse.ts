/**
 * 第 8.5 章练习的参考答案：一个把文本倒过来的扩展。
 * 把它复制到 labs/mini-agent-harness/step07-abort-extensions/extensions/reverse.ts，
 * 再把 rules-to-add.txt 里的两条规则加进 src/rules.ts，然后运行 npm run exercise -- 7。
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
      // 按字符（码点）倒序：直接对字符串下标倒序会把 emoji 之类拆成两半。
      return { content: [...(args.text as string)].reverse().join("") };
    },
  });
}
