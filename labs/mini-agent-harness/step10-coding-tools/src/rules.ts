/**
 * 假模型的剧本：一张按顺序匹配的规则表，第一条命中的规则生效。
 *
 * 规则看的是上下文里的最后一条消息：用户消息包含 on 就命中；
 * 工具刚返回结果时，最后一条消息记作 "toolResult:<工具名>"。
 * 回复可以是固定文本，也可以由整个上下文算出来——这就是每次都要把完整历史交给模型的原因。
 * 想让假模型学会一句新话，就在兜底规则之前加一条。
 * 换成真实模型（step08）之后，这张表就用不上了：那时是模型自己决定说什么、调什么工具。
 */

import type { Context } from "./types.js";

/** 剧本。 */
export const RULES: Rule[] = [
  // ── 记忆：回答要用到更早的历史 ──
  { on: "我叫什么", reply: (context) => recallName(context) },
  { on: "我叫", reply: (context) => `你好，${after(lastText(context), "我叫")}！我记住了。` },
  // ── 流式：一段慢慢吐出来的长回复；一次中途失败的回复 ──
  { on: "说个长的", reply: longReply },
  { on: "出个错", reply: "好的，我这就开始回答", error: "模拟的模型服务错误：连接被对方重置" },
  // ── 工具：upper 由扩展 extensions/logger.ts 注册，内置工具里没有它 ──
  {
    on: "转成大写",
    reply: "交给 upper 工具。",
    toolCall: { name: "upper", arguments: (input) => ({ text: between(input, "把", "转成大写") }) },
  },
  { on: "toolResult:upper", reply: okOrError("转好了。") },
  // ── 工具：calc 与 read_file 是内置工具 ──
  {
    on: "帮我算",
    reply: "我用 calc 算一下。",
    toolCall: { name: "calc", arguments: (input) => ({ expression: after(input, "帮我算") }) },
  },
  { on: "toolResult:calc", reply: (context) => answerFromTool(context, "结果是 ", "。") },
  {
    on: "读一下",
    reply: "我用 read_file 看看。",
    toolCall: { name: "read_file", arguments: (input) => ({ path: after(input, "读一下") }) },
  },
  { on: "toolResult:read_file", reply: (context) => answerFromTool(context, "文件第一行是：", "") },
  // ── 慢工具：sleep 由扩展 extensions/sleep.ts 注册，用来试工具超时与 Ctrl+C ──
  {
    on: "睡一会",
    reply: "我用 sleep 工具等一等。",
    toolCall: { name: "sleep", arguments: (input) => ({ ms: Number(after(input, "睡一会")) || 5000 }) },
  },
  { on: "toolResult:sleep", reply: okOrError("睡醒了。") },
  // ── 编程工具：write、edit、bash ──
  {
    on: "写入",
    reply: "我用 write 写这个文件。",
    toolCall: { name: "write", arguments: (input) => ({ path: between(input, "写入", "："), content: after(input, "：") }) },
  },
  { on: "toolResult:write", reply: (context) => lastResult(context) },
  {
    on: "里的「",
    reply: "我用 edit 改一下。",
    toolCall: { name: "edit", arguments: (input) => ({ path: between(input, "把", "里的「"), edits: [parseEdit(input)] }) },
  },
  // edit 说 oldText 不唯一、而用户说了是哪一行：带上整行再试一次；别的结果如实转述
  { on: "toolResult:edit", reply: afterEdit, toolCall: { name: "edit", arguments: (input, context) => retryWithWholeLine(input, context) } },
  {
    on: "运行",
    reply: "我用 bash 运行这条命令。",
    toolCall: { name: "bash", arguments: (input) => bashArguments(input) },
  },
  { on: "toolResult:bash", reply: afterBash },
  // ── 兜底：剧本里没有的话 ──
  {
    on: "",
    reply:
      "（离线假模型）这句话不在剧本里。试试：我叫小明 / 我叫什么 / 说个长的 / 出个错 / 帮我算 17*38 / 读一下 package.json / 把 abc 转成大写 / 睡一会 3000 / " +
      "写入 notes.txt：第一行 / 把 notes.txt 里的「第一行」改成「第 1 行」 / 运行 node -e \"console.log(6*7)\" / 限时 1 秒运行 sleep 100。",
  },
];

/** 一条规则。 */
export interface Rule {
  /** 触发词：最后一条消息包含它就命中；空字符串匹配一切，用作兜底。 */
  on: string;
  /** 回复文本：固定文本，或由整个上下文算出来。 */
  reply: string | ((context: Context) => string);
  /** 可选：说完 reply 之后发起一次工具调用，参数由用户原话（需要时再加上整个上下文）算出来；算出 undefined 就不调用。 */
  toolCall?: { name: string; arguments: (input: string, context: Context) => Record<string, unknown> | undefined };
  /** 可选：吐完 reply 之后以这条错误结束，模拟模型服务中途出故障。 */
  error?: string;
}

/** 找到第一条命中的规则。 */
export function pickRule(rules: Rule[], context: Context): Rule | undefined {
  const trigger = triggerOf(context);
  return rules.find((rule) => trigger.includes(rule.on));
}

/** 最后一条消息的「触发文本」：用户原话，或 toolResult:<工具名>。 */
export function triggerOf(context: Context): string {
  const last = context.messages.at(-1);
  if (last?.role === "user") return last.content;
  if (last?.role === "toolResult") return `toolResult:${last.toolName}`;
  return "";
}

/** 最近一条用户消息的原话。 */
export function lastText(context: Context): string {
  const user = context.messages.findLast((message) => message.role === "user");
  return user?.role === "user" ? user.content : "";
}

/** 取 marker 之后的文字，去掉首尾空白。 */
export function after(text: string, marker: string): string {
  const index = text.indexOf(marker);
  return index < 0 ? "" : text.slice(index + marker.length).trim();
}

/** 取 start 与 end 之间的文字，去掉首尾空白。 */
export function between(text: string, start: string, end: string): string {
  const rest = after(text, start);
  const index = rest.indexOf(end);
  return (index < 0 ? rest : rest.slice(0, index)).trim();
}

/** 从更早的历史里找「我叫 X」：模型看得见整个上下文，所以它「记得」。 */
function recallName(context: Context): string {
  for (const message of [...context.messages].reverse()) {
    if (message.role !== "user" || message.content.includes("我叫什么")) continue;
    const name = after(message.content, "我叫");
    if (name) return `你叫${name}。`;
  }
  return "你还没告诉我你的名字。";
}

/** 工具成功时说 text；工具出错时如实转述错误。 */
function okOrError(text: string): (context: Context) => string {
  return (context) => {
    const last = context.messages.at(-1);
    return last?.role === "toolResult" && last.isError ? `工具出错了：${last.content}` : text;
  };
}

/** 根据最后一条工具结果作答；工具出错时如实转述。 */
function answerFromTool(context: Context, prefix: string, suffix: string): string {
  const last = context.messages.at(-1);
  if (last?.role !== "toolResult") return "没有拿到工具结果。";
  if (last.isError) return `工具出错了：${last.content}`;
  return `${prefix}${last.content.split("\n")[0] ?? ""}${suffix}`;
}

/**
 * 「说个长的」的回复。交互模式每 40 毫秒吐一段，这段要吐 3 秒以上，才来得及在吐字时按下 Ctrl+C。
 * 开头那句是书里印的；demo 吐出开头几个字就取消，所以加长它不改变 demo 的输出。
 */
function longReply(): string {
  return [
    "这是一段很长的回复，我会一个 token 一个 token 地慢慢吐出来，好让你看清流式输出是怎么回事。",
    "趁我还在往外吐字，按一下 Ctrl+C 试试：这一轮会马上停下，屏幕上留下半句话和 [已取消]，",
    "然后重新出现「你> 」提示符，进程还活着，可以接着说下一句。",
    "被打断的半句话不会丢：它照样进了上下文，也写进了会话文件，下次恢复时还能看到。",
  ].join("");
}

/** 最后一条工具结果的内容（没有就是空串）。 */
function lastResultText(context: Context): string {
  const last = context.messages.at(-1);
  return last?.role === "toolResult" ? last.content : "";
}

/** 工具结果原样转述一句。 */
function lastResult(context: Context): string {
  return `工具说：${lastResultText(context).split("\n")[0] ?? ""}`;
}

/** 「把 <文件> 里的「旧」改成「新」（那一行是「…」）」里的一处替换。 */
function parseEdit(input: string): { oldText: string; newText: string } {
  return { oldText: between(input, "里的「", "」"), newText: between(input, "改成「", "」") };
}

/** 用户说了「那一行是「…」」时的那一行。 */
function wholeLine(input: string): string | undefined {
  return input.includes("那一行是「") ? between(input, "那一行是「", "」") : undefined;
}

/** edit 之后说的话：改好了、换一种写法再试、或者如实转述错误。 */
function afterEdit(context: Context): string {
  const result = lastResultText(context);
  if (result.startsWith("已修改")) return "改好了。";
  if (retryWithWholeLine(lastText(context), context)) return "这段文字在文件里不止一处。我带上整行再改一次。";
  return `没改成：${result}`;
}

/**
 * edit 报「出现了 N 处」、用户又说了是哪一行、而上一次还不是整行：把整行当作 oldText 再试。
 * 只试一次：整行也不行，就把错误转述给用户。
 */
function retryWithWholeLine(input: string, context: Context): Record<string, unknown> | undefined {
  const line = wholeLine(input);
  if (!line || !/出现了 \d+ 处/.test(lastResultText(context))) return undefined;
  const { oldText, newText } = parseEdit(input);
  const previous = context.messages.findLast((message) => message.role === "assistant");
  const tried = previous?.role === "assistant" ? previous.content.some((part) => part.type === "toolCall" && JSON.stringify(part.arguments).includes(JSON.stringify(line))) : false;
  if (tried) return undefined;
  return { path: between(input, "把", "里的「"), edits: [{ oldText: line, newText: line.replace(oldText, newText) }] };
}

/** 「运行 <命令>」或「限时 <N> 秒运行 <命令>」。 */
function bashArguments(input: string): Record<string, unknown> {
  const limited = /限时\s*(\d+(?:\.\d+)?)\s*秒运行\s*(.*)$/s.exec(input);
  if (limited) return { command: limited[2]!.trim(), timeout: Number(limited[1]) };
  return { command: after(input, "运行") };
}

/** bash 之后说的话：跑完了说输出的第一行；没跑完说最后那行状态（退出码、超时、取消）；根本没运行（被阻止）就转述理由。 */
function afterBash(context: Context): string {
  const lines = lastResultText(context).split("\n").filter((line) => line.trim() !== "");
  const status = lines.at(-1) ?? "";
  if (status === "[退出码 0]") return `命令跑完了，输出的第一行是：${lines[0] ?? ""}`;
  return status.startsWith("[") ? `命令没有顺利跑完：${status}` : `命令没有运行：${status}`;
}
