/**
 * 权限闸门：bash、write、edit 执行之前先问人；没有人可问（管道、CI）就不执行。
 *
 *   npm start -- --extension extensions/permission-gate.ts
 *
 * 只用 Pi 也有的接口（pi.on("tool_call")、event.toolName / input、ctx.hasUI / signal / ui.confirm），
 * 没有运行时的 import：同一个文件不改一个字，也能放进真的 Pi 1.6.0（Pi 的示例 examples/extensions/permission-gate.ts
 * 只拦 rm -rf、sudo 这几种危险命令，这里每次都问）。
 * 在问题上按 Ctrl+C：当作「不」，这一轮也随之取消。
 */

import type { ExtensionAPI } from "../src/extensions.js";

/** 要先问一声的工具：会改文件、会运行命令的这三个。read_file、calc 只读不写，不问。 */
const ASK_BEFORE = ["bash", "write", "edit"];

export default function permissionGate(pi: ExtensionAPI): void {
  pi.on("tool_call", async (event, ctx) => {
    if (!ASK_BEFORE.includes(event.toolName)) return undefined;
    // 问的是什么：bash 给命令，write、edit 给路径
    const what = event.toolName === "bash" ? String(event.input.command) : String(event.input.path);
    if (!ctx.hasUI) {
      return {
        block: true,
        reason: `没有终端，没法问人能不能运行 ${event.toolName}（${what}），所以没有运行。要允许：在终端里运行 npm start；或者不加载 extensions/permission-gate.ts`,
      };
    }
    const allowed = await ctx.ui.confirm(`允许运行 ${event.toolName}？`, what, { signal: ctx.signal });
    if (allowed) return undefined;
    return { block: true, reason: ctx.signal?.aborted ? `用户按了 Ctrl+C：没有运行 ${event.toolName}，这一轮已取消` : `用户没有允许运行 ${event.toolName}（${what}）` };
  });
}
