/**
 * 书中第 8.5 章引用本步骤代码的每一处 file:line，都必须指向它描述的那段代码。
 * 这张表就是书里的引用表：改动代码让行号漂移时，这里会告诉你该去改哪一章。
 */

import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

import { stepRoot } from "./helpers/cli.js";

interface Citation {
  file: string;
  lines: [number, number];
  what: string;
  /** 这段行里必须依次出现的代码片段。 */
  holds: string[];
  /** 第一行 / 最后一行必须是什么（去掉首尾空白后）。 */
  first?: string;
  last?: string;
}

const CITATIONS: Citation[] = [
  { file: "src/fake-model.ts", lines: [57, 68], what: "可取消的 sleep", first: "function sleep(ms: number, signal?: AbortSignal): Promise<void> {", last: "}",
    holds: ["if (signal?.aborted", "return Promise.resolve();", "setTimeout(finish, ms)", "clearTimeout(timer);", 'signal?.removeEventListener("abort", finish);', "resolve();", 'signal?.addEventListener("abort", finish, { once: true });'] },
  { file: "src/fake-model.ts", lines: [109, 126], what: "吐 token 的循环", first: "for (const [index, token] of tokenize(reply.text).entries()) {", last: "}",
    holds: ["await sleep(", "if (signal?.aborted) {", 'type: "done"', 'stopReason: "aborted"', "return;", "text += token;", 'yield { type: "text_delta", delta: token };'] },
  { file: "src/fake-model.ts", lines: [113, 123], what: "吐 token 时的取消检查", first: "if (signal?.aborted) {", last: "}", holds: ['stopReason: "aborted"', "return;"] },
  { file: "src/types.ts", lines: [44, 44], what: "StopReason", first: 'export type StopReason = "stop" | "error" | "aborted" | "toolUse";', holds: [] },
  { file: "src/types.ts", lines: [98, 102], what: "StreamFn 与它的不抛异常契约", first: "/**", last: "export type StreamFn = (context: Context, options?: StreamOptions) => AsyncIterable<StreamEvent>;",
    holds: ["契约：**不允许 throw，错误编码成 error 事件**", "FakeModel 与真实 Provider"] },
  { file: "src/agent-loop.ts", lines: [41, 42], what: "signal 选项", last: "signal?: AbortSignal;", holds: ["取消信号。会被透传给 streamFn"] },
  { file: "src/agent-loop.ts", lines: [97, 101], what: "取消点一", first: "for (let turn = 1; turn <= maxTurns; turn++) {", last: "return;", holds: ["取消点一", "if (signal?.aborted) {", 'yield { type: "abort" };'] },
  { file: "src/agent-loop.ts", lines: [106, 106], what: "signal 透传给 streamFn", first: "for await (const event of streamFn(context, { ...streamOptions, signal })) {", holds: [] },
  { file: "src/agent-loop.ts", lines: [107, 107], what: "text_delta 原样 yield", holds: ['if (event.type === "text_delta") yield event;'] },
  { file: "src/agent-loop.ts", lines: [114, 124], what: "先 push 再判断：取消点二", last: "}",
    holds: ["context.messages.push(assistant);", "取消点二", 'if (assistant.stopReason === "aborted") {', 'yield { type: "abort" };', "return;"] },
  { file: "src/agent-loop.ts", lines: [120, 124], what: "取消点二的检查", first: "// 取消点二：模型这一轮是被打断的，不再往下执行工具。", last: "}", holds: ['if (assistant.stopReason === "aborted") {'] },
  { file: "src/agent-loop.ts", lines: [121, 124], what: "取消点二的出口", first: 'if (assistant.stopReason === "aborted") {', last: "}", holds: [] },
  { file: "src/agent-loop.ts", lines: [132, 138], what: "取消点三", first: "for (const toolCall of toolCalls) {", last: "}", holds: ["取消点三", "if (signal?.aborted) {", 'yield { type: "abort" };', "return;"] },
  { file: "src/main.ts", lines: [34, 39], what: "--extension 参数（可重复）", first: '} else if (arg === "--extension") {', holds: ["extensionFiles.push("] },
  { file: "src/main.ts", lines: [41, 51], what: "工具、宿主与扩展加载", last: "}",
    holds: ["const tools = createBuiltinTools();", "const host = new ExtensionHost(tools);", "for (const file of extensionFiles) {", "try {", "await loadExtension(path.resolve(projectRoot, file), host);", "catch (error)", "加载扩展失败"] },
  { file: "src/main.ts", lines: [46, 46], what: "扩展路径相对于项目根目录", first: "await loadExtension(path.resolve(projectRoot, file), host);", holds: [] },
  { file: "src/main.ts", lines: [89, 92], what: "ask() 在 Ctrl+D 时返回 undefined", first: "async function ask(): Promise<string | undefined> {", holds: ["rl.prompt();", "next.done ? undefined : next.value"] },
  { file: "src/main.ts", lines: [94, 107], what: "Ctrl+C 处理", last: 'process.on("SIGINT", handleInterrupt);',
    holds: ["let active: AbortController | undefined;", "function handleInterrupt(): void {", "if (active) {", "active.abort();", "return;", '"\\n再见。"', "rl.close();", "process.exit(0);", 'rl.on("SIGINT", handleInterrupt);'] },
  { file: "src/main.ts", lines: [126, 136], what: "每一轮一个新的 AbortController", last: "active = undefined;",
    holds: ["active = new AbortController();", "const events = runAgentLoop({", "signal: active.signal,", "await renderEvents(withExtensions("] },
  { file: "src/extensions.ts", lines: [20, 29], what: "ExtensionAPI 与 ExtensionFactory", last: "export type ExtensionFactory = (pi: ExtensionAPI) => void | Promise<void>;",
    holds: ["export interface ExtensionAPI {", "onEvent(handler: (event: HarnessEvent) => void): void;", "registerTool(tool: ToolDefinition): void;"] },
  { file: "src/extensions.ts", lines: [29, 29], what: "ExtensionFactory", first: "export type ExtensionFactory = (pi: ExtensionAPI) => void | Promise<void>;", holds: [] },
  { file: "src/extensions.ts", lines: [37, 37], what: "构造函数参数属性", first: "constructor(private readonly tools: ToolRegistry) {}", holds: [] },
  { file: "src/extensions.ts", lines: [47, 59], what: "emit 隔离观察者的异常", first: "/**", last: "}", holds: ["emit(event: HarnessEvent): void {", "try {", "handler(event);", "console.error(`[扩展错误] "] },
  { file: "src/extensions.ts", lines: [69, 78], what: "loadExtension", first: "export async function loadExtension(file: string, host: ExtensionHost): Promise<void> {", last: "}",
    holds: ["path.resolve(file)", "await import(pathToFileURL(absolute).href)", 'typeof factory !== "function"', "必须默认导出一个函数", "await (factory as ExtensionFactory)(host);", "host.loaded.push(path.basename(absolute));"] },
  { file: "src/extensions.ts", lines: [73, 75], what: "默认导出检查", first: 'if (typeof factory !== "function") {', last: "}", holds: ["throw new Error(`扩展 ${file} 必须默认导出一个函数`);"] },
  { file: "src/extensions.ts", lines: [85, 93], what: "withExtensions：先 emit 再 yield", first: "export async function* withExtensions(", last: "}", holds: ["host.emit(event);", "yield event;"] },
  { file: "src/tools/types.ts", lines: [51, 56], what: "重名抛错", first: "register(tool: ToolDefinition): void {", last: "}", holds: ["if (this.tools.has(tool.name)) {", "throw new Error(`工具名重复：${tool.name}`);", "this.tools.set(tool.name, tool);"] },
  { file: "src/rules.ts", lines: [22, 27], what: "两条 upper 规则", first: "{", last: '{ on: "toolResult:upper", reply: okOrError("转好了。") },', holds: ['on: "转成大写"', 'name: "upper"'] },
  { file: "src/demo.ts", lines: [82, 84], what: "场景 2 的三行收尾", first: "console.log(`被取消时已生成的内容：「${partial}」`);", last: "console.log(`它仍然被保存进了会话文件，当前共 ${saved} 条消息。`);", holds: ["stopReason 是："] },
  { file: "extensions/logger.ts", lines: [16, 48], what: "示例扩展", first: "export default function loggerExtension(pi: ExtensionAPI): void {", last: "}",
    holds: ["let toolCalls = 0;", "pi.onEvent((event) => {", 'case "tool_call":', "第 ${toolCalls} 次工具调用", 'case "abort":', "观察到一次取消", "pi.registerTool({", 'name: "upper"', "toUpperCase()"] },
];

const read = (file: string): string[] => fs.readFileSync(path.join(stepRoot, file), "utf8").replace(/\r\n/g, "\n").split("\n");

describe("第 8.5 章的代码引用", () => {
  it.each(CITATIONS)("$file:$lines.0-$lines.1 是 $what", ({ file, lines: [from, to], holds, first, last }) => {
    const source = read(file);
    const span = source.slice(from - 1, to).map((line) => line.trim());
    expect(span).toHaveLength(to - from + 1);
    if (first !== undefined) expect(span[0]).toBe(first);
    if (last !== undefined) expect(span.at(-1)).toBe(last);
    const text = span.join("\n");
    let position = 0;
    for (const piece of holds) {
      const found = text.indexOf(piece, position);
      expect(found, `在 ${file}:${from}-${to} 里按顺序找「${piece}」`).toBeGreaterThanOrEqual(0);
      position = found + piece.length;
    }
  });

  it("src/extensions.ts 恰好 93 行", () => {
    const lines = read("src/extensions.ts");
    expect(lines.at(-1)).toBe(""); // 以换行结尾
    expect(lines.length - 1).toBe(93);
  });

  it("内置工具只有 calc 与 read_file（upper 来自扩展）", () => {
    const index = read("src/tools/index.ts").join("\n");
    expect(index).toContain("calcTool");
    expect(index).toContain("readFileTool");
    expect(index).not.toContain("upper");
  });

  it("agent-loop.ts 里恰好三个取消点，工具执行中途没有第四个", () => {
    const source = read("src/agent-loop.ts").join("\n");
    expect(source.match(/if \(signal\?\.aborted\)/g)).toHaveLength(2);
    expect(source.match(/stopReason === "aborted"/g)).toHaveLength(1);
    expect(source.match(/\/\/ 取消点.：/g)).toEqual(["// 取消点一：", "// 取消点二：", "// 取消点三："]);
  });
});
