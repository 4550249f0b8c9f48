// 假模型的剧本：每一条规则说什么、调什么工具、工具回来之后怎么答。
// 以前只由 demo 的 golden 文件在子进程里把关；变异测试（npm run mutation）看不见子进程，这里在进程内逐条核对。
import { describe, expect, it } from "vitest";

import { decideReply } from "../src/fake-model.js";
import { after, between, lastText, RULES, triggerOf } from "../src/rules.js";
import type { Context, Message } from "../src/types.js";

const user = (content: string): Message => ({ role: "user", content });
const said = (text: string): Message => ({ role: "assistant", content: [{ type: "text", text }], stopReason: "stop" });
const result = (toolName: string, content: string, isError = false): Message => ({ role: "toolResult", toolCallId: "call_1", toolName, content, isError });
const ctx = (...messages: Message[]): Context => ({ messages });

/** 工具调用回来之后的上下文：用户的话、助手发起的调用、工具的结果。 */
const afterTool = (ask: string, toolName: string, content: string, isError = false): Context =>
  ctx(user(ask), { role: "assistant", content: [{ type: "toolCall", id: "call_1", name: toolName, arguments: {} }], stopReason: "toolUse" }, result(toolName, content, isError));

const FALLBACK =
  "（离线假模型）这句话不在剧本里。试试：我叫小明 / 我叫什么 / 说个长的 / 出个错 / 帮我算 17*38 / 读一下 package.json / 把 abc 转成大写 / 睡一会 3000 / " +
  '写入 notes.txt：第一行 / 把 notes.txt 里的「第一行」改成「第 1 行」 / 运行 node -e "console.log(6*7)" / 限时 1 秒运行 sleep 100。';
const LONG =
  "这是一段很长的回复，我会一个 token 一个 token 地慢慢吐出来，好让你看清流式输出是怎么回事。" +
  "趁我还在往外吐字，按一下 Ctrl+C 试试：这一轮会马上停下，屏幕上留下半句话和 [已取消]，" +
  "然后重新出现「你> 」提示符，进程还活着，可以接着说下一句。" +
  "被打断的半句话不会丢：它照样进了上下文，也写进了会话文件，下次恢复时还能看到。";

const call = (name: string, args: Record<string, unknown>) => [{ type: "toolCall", id: "call_1", name, arguments: args }];

describe("剧本：用户的话 → 回复与工具调用", () => {
  it.each([
    ["我叫小明", { text: "你好，小明！我记住了。", toolCalls: [] }],
    ["说个长的", { text: LONG, toolCalls: [] }],
    ["出个错", { text: "好的，我这就开始回答", toolCalls: [], error: "模拟的模型服务错误：连接被对方重置" }],
    ["把 abc 转成大写", { text: "交给 upper 工具。", toolCalls: call("upper", { text: "abc" }) }],
    ["帮我算 17*38", { text: "我用 calc 算一下。", toolCalls: call("calc", { expression: "17*38" }) }],
    ["读一下 package.json", { text: "我用 read_file 看看。", toolCalls: call("read_file", { path: "package.json" }) }],
    ["睡一会 3000", { text: "我用 sleep 工具等一等。", toolCalls: call("sleep", { ms: 3000 }) }],
    ["睡一会", { text: "我用 sleep 工具等一等。", toolCalls: call("sleep", { ms: 5000 }) }],
    ["睡一会 好久", { text: "我用 sleep 工具等一等。", toolCalls: call("sleep", { ms: 5000 }) }],
    ["今天天气怎么样", { text: FALLBACK, toolCalls: [] }],
  ])("%s", (input, expected) => {
    expect(decideReply(ctx(user(input)))).toEqual(expected);
  });

  it("工具回来之后：成功时作答，出错时如实转述", () => {
    const text = (context: Context) => decideReply(context).text;
    expect(text(afterTool("把 abc 转成大写", "upper", "ABC"))).toBe("转好了。");
    expect(text(afterTool("把 abc 转成大写", "upper", "没有这个工具", true))).toBe("工具出错了：没有这个工具");
    expect(text(afterTool("帮我算 17*38", "calc", "646"))).toBe("结果是 646。");
    expect(text(afterTool("帮我算 1/0", "calc", "除数不能为 0", true))).toBe("工具出错了：除数不能为 0");
    expect(text(afterTool("读一下 a.txt", "read_file", "第一行\n第二行\n"))).toBe("文件第一行是：第一行");
    expect(text(afterTool("读一下 a.txt", "read_file", "文件不存在：a.txt", true))).toBe("工具出错了：文件不存在：a.txt");
    expect(text(afterTool("睡一会 10", "sleep", "睡了 10 毫秒"))).toBe("睡醒了。");
    expect(text(afterTool("睡一会 10", "sleep", "工具 sleep 超时", true))).toBe("工具出错了：工具 sleep 超时");
    expect(text(afterTool("随便", "weather", "晴"))).toBe(FALLBACK);
  });

  it("回复函数拿到的最后一条不是工具结果（或上下文是空的）：按工具作答的照实说没拿到，其余的照常说成功", () => {
    for (const on of ["toolResult:calc", "toolResult:read_file"]) {
      const rule = RULES.find((r) => r.on === on);
      if (typeof rule?.reply !== "function") throw new Error(`剧本里没有 ${on} 的回复函数`);
      expect(rule.reply(ctx(user("x")))).toBe("没有拿到工具结果。");
      expect(rule.reply(ctx())).toBe("没有拿到工具结果。");
    }
    for (const [on, ok] of [["toolResult:upper", "转好了。"], ["toolResult:sleep", "睡醒了。"]]) {
      const rule = RULES.find((r) => r.on === on);
      if (typeof rule?.reply !== "function") throw new Error(`剧本里没有 ${on} 的回复函数`);
      expect(rule.reply(ctx())).toBe(ok);
      expect(rule.reply(ctx(user("x")))).toBe(ok);
    }
  });

  it("记名字：找最近一次说的名字；空名字与「我叫什么」本身不算；没说过就说没说过", () => {
    const text = (...messages: Message[]) => decideReply(ctx(...messages)).text;
    expect(text(user("我叫什么"))).toBe("你还没告诉我你的名字。");
    expect(text(user("我叫甲"), said("你好"), user("我叫乙"), said("你好"), user("我叫什么"))).toBe("你叫乙。");
    expect(text(user("我叫丙"), user("我叫 "), user("我叫什么"))).toBe("你叫丙。");
    expect(text(user("我叫戊"), result("read_file", "我叫己"), user("我叫什么"))).toBe("你叫戊。");
    expect(text(user("我叫丁"), user("我叫什么"), said("你叫丁。"), user("我叫什么"))).toBe("你叫丁。");
  });

  it("上下文是空的、或最后一条是助手消息：走兜底规则", () => {
    expect(decideReply(ctx()).text).toBe(FALLBACK);
    expect(decideReply(ctx(user("我叫小明"), said("你好"))).text).toBe(FALLBACK);
  });
});

describe("剧本用的小函数", () => {
  it("triggerOf：用户原话、toolResult:<工具名>，其余为空串", () => {
    expect(triggerOf(ctx(user("你好")))).toBe("你好");
    expect(triggerOf(ctx(result("calc", "1")))).toBe("toolResult:calc");
    expect(triggerOf(ctx(said("嗯")))).toBe("");
    expect(triggerOf(ctx())).toBe("");
  });

  it("lastText：最近一条用户消息，后面跟着别的消息也找得到；没有用户消息时为空串", () => {
    expect(lastText(ctx(user("一"), said("嗯"), result("calc", "1")))).toBe("一");
    expect(lastText(ctx(said("嗯")))).toBe("");
    expect(lastText(ctx())).toBe("");
  });

  it("after 与 between：找不到标记时为空串（between 找不到结尾时取到底），都去掉首尾空白", () => {
    expect(after("我叫 小明 ", "我叫")).toBe("小明");
    expect(after("你好", "我叫")).toBe("");
    expect(between("把 abc 转成大写", "把", "转成大写")).toBe("abc");
    expect(between("把 abc ", "把", "转成大写")).toBe("abc");
    expect(between("把转成大写", "把", "转成大写")).toBe("");
    expect(between("abc 转成大写", "把", "转成大写")).toBe("");
  });
});
