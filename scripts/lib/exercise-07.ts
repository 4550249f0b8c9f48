/**
 * 第 8.5 章练习的检查器：按「行为」而不是按「文本」检查学习者的扩展。
 *
 * 它像宿主一样加载 extensions/reverse.ts，调用它注册的工具，再用步骤自己的假模型
 * 跑一遍剧本对话「把 abcdef 倒过来」。每一项失败都附一条提示，告诉学习者下一步该看哪里。
 */

import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

export interface CheckResult {
  name: string;
  ok: boolean;
  /** 失败时给学习者的提示。 */
  hint?: string;
  /** 失败时看到的实际情况。 */
  detail?: string;
}

/** 动态导入步骤里的一个模块。路径转成 file:// URL，Windows 上也对。 */
async function load<T>(stepDir: string, relative: string): Promise<T> {
  return (await import(pathToFileURL(path.join(stepDir, relative)).href)) as T;
}

interface ToolResult {
  content: string;
  isError?: boolean;
}
interface Registry {
  names(): string[];
  execute(call: { type: "toolCall"; id: string; name: string; arguments: Record<string, unknown> }, ctx: { cwd: string }): Promise<ToolResult>;
}
interface HostModule {
  ExtensionHost: new (tools: Registry) => { loaded: string[]; emit(event: unknown): void };
  loadExtension(file: string, host: unknown): Promise<void>;
}
type LoopEvent = { type: string; toolCall?: { name: string; arguments: unknown }; message?: { role: string } & Record<string, unknown> };

const errorText = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** 检查 stepDir（step07 的目录或它的副本）里的练习，返回逐项结果。 */
export async function checkExercise07(stepDir: string): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  const file = path.join(stepDir, "extensions", "reverse.ts");

  // 1. 文件在不在
  if (!fs.existsSync(file)) {
    results.push({
      name: "extensions/reverse.ts 存在",
      ok: false,
      hint: "新建 extensions/reverse.ts，照着 extensions/logger.ts 的形状写：默认导出一个函数 (pi) => { … }。",
    });
    return results;
  }
  results.push({ name: "extensions/reverse.ts 存在", ok: true });

  // 2. 像宿主一样加载它
  const { createBuiltinTools } = await load<{ createBuiltinTools(): Registry }>(stepDir, "src/tools/index.ts");
  const { ExtensionHost, loadExtension } = await load<HostModule>(stepDir, "src/extensions.ts");
  const tools = createBuiltinTools();
  const host = new ExtensionHost(tools);
  try {
    await loadExtension(file, host);
    results.push({ name: "宿主能加载这个扩展", ok: true });
  } catch (error) {
    const message = errorText(error);
    const hint = message.includes("必须默认导出一个函数")
      ? "扩展必须 export default 一个函数：export default function reverseExtension(pi: ExtensionAPI): void { … }"
      : message.includes("工具名重复")
        ? "工具名和已有工具重名了：把工具命名为 reverse（calc、read_file 是内置工具）。"
        : "加载时抛出了异常：先单独运行 npm start -- --extension extensions/reverse.ts 看看完整报错。";
    results.push({ name: "宿主能加载这个扩展", ok: false, hint, detail: message });
    return results;
  }

  // 3. 注册了 reverse 工具
  if (!tools.names().includes("reverse")) {
    results.push({
      name: "注册了名为 reverse 的工具",
      ok: false,
      hint: '在工厂函数里调用 pi.registerTool({ name: "reverse", description, parameters, execute })。',
      detail: `注册表里现在的工具：${tools.names().join("、")}`,
    });
    return results;
  }
  results.push({ name: "注册了名为 reverse 的工具", ok: true });

  // 4. 工具本身算得对
  const cases: Array<[string, string]> = [["abcdef", "fedcba"], ["Harness 你好", "好你 ssenraH"]];
  for (const [input, expected] of cases) {
    const result = await tools.execute({ type: "toolCall", id: "check", name: "reverse", arguments: { text: input } }, { cwd: stepDir });
    const ok = !result.isError && result.content === expected;
    results.push({
      name: `reverse {"text":${JSON.stringify(input)}} → ${expected}`,
      ok,
      ...(ok
        ? {}
        : {
            hint: result.isError
              ? "工具返回了错误结果：检查 parameters 里是否声明了 text（type: \"string\"，required: [\"text\"]），以及 execute 有没有抛异常。"
              : "execute 应返回 { content: 倒过来的文本 }。提示：[...text].reverse().join(\"\") 按字符倒序，中文也不会被拆坏。",
            detail: `得到：${JSON.stringify(result.content)}`,
          }),
    });
  }

  // 5. 剧本对话：假模型要能「开口」调用它，工具结果之后还要有收尾回复
  const { runAgentLoop } = await load<{ runAgentLoop(options: unknown): AsyncIterable<LoopEvent> }>(stepDir, "src/agent-loop.ts");
  const { createFakeModel } = await load<{ createFakeModel(options?: unknown): unknown }>(stepDir, "src/fake-model.ts");
  const context = { messages: [{ role: "user", content: "把 abcdef 倒过来" }] as unknown[] };
  const events: LoopEvent[] = [];
  for await (const event of runAgentLoop({ streamFn: createFakeModel(), context, tools, toolContext: { cwd: stepDir }, maxTurns: 4 })) {
    events.push(event);
  }
  const call = events.find((event) => event.type === "tool_call");
  const callOk = call?.toolCall?.name === "reverse" && JSON.stringify(call.toolCall.arguments) === '{"text":"abcdef"}';
  results.push({
    name: '「把 abcdef 倒过来」让假模型调用 reverse {"text":"abcdef"}',
    ok: callOk,
    ...(callOk
      ? {}
      : {
          hint: '在 src/rules.ts 的 RULES 里、兜底规则之前加一条规则：on: "倒过来"，toolCall: { name: "reverse", arguments: (input) => ({ text: between(input, "把", "倒过来") }) }（参照 src/rules.ts:22-27 的 upper 规则）。',
          detail: call ? `假模型调用的是 ${call.toolCall?.name} ${JSON.stringify(call.toolCall?.arguments)}` : "假模型没有发起任何工具调用",
        }),
  });
  if (!callOk) return results;
  const turnEnds = events.filter((event) => event.type === "turn_end").length;
  const closing = context.messages.at(-1) as { role?: string } | undefined;
  // 收尾回复不能是兜底规则给的：兜底规则的 on 是空字符串，什么都能匹配。
  const { pickRule, RULES } = await load<{ pickRule(rules: unknown[], context: unknown): { on: string } | undefined; RULES: unknown[] }>(stepDir, "src/rules.ts");
  const afterTool = pickRule(RULES, { messages: [{ role: "toolResult", toolCallId: "check", toolName: "reverse", content: "fedcba" }] });
  const closed = turnEnds === 2 && closing?.role === "assistant" && afterTool !== undefined && afterTool.on !== "";
  results.push({
    name: "工具结果之后，第 2 轮有一句收尾回复",
    ok: closed,
    ...(closed
      ? {}
      : {
          hint: '再加一条规则：{ on: "toolResult:reverse", reply: "倒好了。" }——工具结果回到上下文后，最后一条消息的触发文本就是 toolResult:reverse。',
          detail: `第 2 轮的回复落到了别的规则上（共 ${turnEnds} 轮）`,
        }),
  });
  return results;
}

/** 把结果排成给人看的文字。 */
export function formatResults(results: CheckResult[]): string {
  const lines = results.map((result) => {
    if (result.ok) return `✓ ${result.name}`;
    const extra = [result.detail ? `    实际：${result.detail}` : "", result.hint ? `    提示：${result.hint}` : ""].filter(Boolean);
    return [`✗ ${result.name}`, ...extra].join("\n");
  });
  const passed = results.length > 0 && results.every((result) => result.ok);
  lines.push("", passed ? "练习通过：你没有改动 src/ 的宿主代码，只加了一个扩展文件和两条剧本规则。" : "练习还没完成：按上面的提示改完后，再运行 npm run exercise -- 7。");
  return lines.join("\n");
}
