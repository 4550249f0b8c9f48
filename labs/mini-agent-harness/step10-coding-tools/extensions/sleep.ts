/**
 * 示例扩展（step09）：一个慢工具 sleep，用来亲手试工具超时与 Ctrl+C。
 *
 *   npm start -- --extension extensions/sleep.ts --tool-timeout 1000
 *   你> 睡一会 60000        ← 剧本让模型调用 sleep {"ms":60000}；1 秒后超时，或者按 Ctrl+C
 *
 * 它理会 context.signal：超时或 Ctrl+C 时定时器被清掉，工具真的停下，而不是在后台接着睡。
 * 把 signal 那几行删掉再试一次：结果照样按时回来（注册表不陪它等），但它还在后台睡着。
 */

import type { ExtensionAPI } from "../src/extensions.js";

export default function sleepExtension(pi: ExtensionAPI): void {
  pi.registerTool({
    name: "sleep",
    description: "等待 ms 毫秒后返回（演示超时与取消用）。",
    parameters: {
      type: "object",
      properties: { ms: { type: "integer", description: "要等多少毫秒" } },
      required: ["ms"],
    },
    execute(args, context) {
      const ms = Number(args.ms);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          context.signal?.removeEventListener("abort", stop);
          resolve({ content: `睡了 ${ms}ms` });
        }, ms);
        function stop(): void {
          clearTimeout(timer);
          // 打印一行，好让人看见工具真的停下了（它的定时器已经清掉，不会在后台接着睡）
          console.log(`  [扩展] sleep 收到取消信号，提前停下（原定 ${ms}ms）`);
          reject(new Error("被叫醒了"));
        }
        if (context.signal?.aborted) stop();
        else context.signal?.addEventListener("abort", stop, { once: true });
      });
    },
  });
}
