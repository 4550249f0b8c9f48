/**
 * 示例扩展：一个计数的观察者，加一个把文本转成大写的工具。
 *
 * 它放在 src/ 之外，代表「用户的代码」：宿主直到运行时才知道它存在。加载方式：
 *   npm start -- --extension extensions/logger.ts
 *
 * 扩展的全部形态就是一个默认导出的函数：宿主把 pi 交给它，它在 pi 上注册东西。
 * 它只 import 类型，不 import 宿主的任何实现——扩展与宿主之间的契约只有 ExtensionAPI。
 *
 * 动手练习：照着这个文件写 extensions/reverse.ts（见 docs/8.5 的实践任务）。
 */

import type { ExtensionAPI } from "../src/extensions.js";

// 计数器住在工厂函数的闭包里：工厂作用域就是这个扩展的实例作用域。
export default function loggerExtension(pi: ExtensionAPI): void {
  let toolCalls = 0;

  // 观察：循环产出的每个事件都会先经过这里，再交给渲染层。
  pi.onEvent((event) => {
    switch (event.type) {
      case "tool_call":
        toolCalls += 1;
        console.log(`  [扩展] 第 ${toolCalls} 次工具调用：${event.toolCall.name}`);
        break;
      case "abort":
        console.log("  [扩展] 观察到一次取消");
        break;
      default:
        // 其他事件不关心。扩展只挑自己在意的事件处理。
        break;
    }
  });

  // 注入：加载时就把工具写进宿主的注册表，模型从第一轮起就看得见它。
  pi.registerTool({
    name: "upper",
    description: "把一段文本转换成大写字母。",
    parameters: {
      type: "object",
      properties: { text: { type: "string", description: "要转换的文本" } },
      required: ["text"],
    },
    async execute(args) {
      return { content: (args.text as string).toUpperCase() };
    },
  });
}
