/**
 * 非交互演示：npm run demo。它的输出会与 expected-output.txt 逐字比对。
 *
 * 和 step08、09 一样全程走真实的 HTTP：本进程里起一个本地脚本服务器，按 rules.ts 的剧本回答。
 * 这次模型会改文件、跑命令，所以它干活的地方是系统临时目录里的一个沙箱，不是仓库：
 *
 *   场景 1：edit 的 oldText 在文件里只出现一次：改好了；
 *   场景 2：oldText 出现了两处：错误结果说出「2 处」、文件不动；模型带上整行再试一次，改好了；
 *   场景 3：bash 跑一条 node -e 命令，权限闸门问了，回答「不」：命令没有运行，模型收到理由；
 *   场景 4：同一条命令，这次回答「是」：输出与退出码交回给模型。
 *
 * 权限闸门是 extensions/permission-gate.ts，和 npm start 加载的是同一个文件；它的问题由这里按剧本回答
 * （scriptedUi 代替终端）。命令写成 node -e "…"（双引号），/bin/sh 与 Windows 的 cmd.exe 里意思一样。
 * 输出里没有路径、端口、时间：沙箱的位置每次都不同，不打印。
 */

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

import { ExtensionHost, loadExtension, withExtensions } from "./extensions.js";
import { withModelTimeout } from "./guard.js";
import { startLocalProvider } from "./local-provider.js";
import { createProviderStream } from "./providers/index.js";
import { renderEvents } from "./render.js";
import { runWithRetry } from "./retry/turn-retry.js";
import { Session } from "./session.js";
import type { Ui } from "./tool-call.js";
import { createBuiltinTools } from "./tools/index.js";
import type { Context } from "./types.js";

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
// 会话文件默认写在本目录的 .sessions/；测试把 DEMO_SESSIONS_DIR 指向各自的临时目录，几份测试同时跑也不会抢同一个文件
const sessionsDir = process.env.DEMO_SESSIONS_DIR ?? path.join(projectRoot, ".sessions");
/** 一把假密钥：不会出现在输出里。 */
const KEY = "sk-demo-0000-not-a-real-key";

// ── 沙箱：模型只在这里改文件、跑命令 ─────────────────────────────
const sandbox = fs.mkdtempSync(path.join(os.tmpdir(), "step10-demo-"));
const NOTES = ["# 第 8.8 章的待办", "- TODO 写 write 工具", "- TODO 写 edit 工具", "- 已完成：read_file", ""].join("\r\n");
fs.writeFileSync(path.join(sandbox, "notes.txt"), NOTES);
const notes = (): string => fs.readFileSync(path.join(sandbox, "notes.txt"), "utf8");

const server = await startLocalProvider({ chunkDelayMs: 5 }).catch((error: Error) => {
  console.error(error.message); // 单独复制出来的步骤目录里没有本地脚本服务器：说一行怎么办，不是一屏堆栈
  process.exit(1);
});
const streamFn = withModelTimeout(createProviderStream({ api: "openai", baseUrl: server.openaiBaseUrl, apiKey: KEY, model: "scripted" }), 10_000);

const tools = createBuiltinTools();
const host = new ExtensionHost(tools);
await loadExtension(path.join(projectRoot, "extensions", "permission-gate.ts"), host);
const session = Session.create(path.join(sessionsDir, "demo.jsonl"));
const context: Context = { messages: [] };

/** 每次闸门发问时 notes.txt 的样子：看得出一次失败的 edit 之后文件有没有变。 */
const notesAtQuestion: string[] = [];

/** 代替终端回答闸门的问题：按顺序取 answers，问题与回答都打印出来（格式同 terminal-ui.ts）。 */
function scriptedUi(answers: boolean[]): Ui {
  return {
    hasUI: true,
    ui: {
      async confirm(title, message) {
        notesAtQuestion.push(notes());
        const yes = answers.shift() ?? false;
        console.log(`[确认] ${title} ${message}（y/N） ${yes ? "y" : "n"}`);
        return yes;
      },
      async select() {
        return undefined;
      },
      notify(message) {
        console.log(`[通知] ${message}`);
      },
    },
  };
}

/** 用户说一句话，跑一次 Agent 循环：会话落盘 → 扩展观察 → 渲染显示，和 cli.ts 一样；闸门的问题按 answers 回答。 */
async function say(text: string, answers: boolean[]): Promise<void> {
  console.log(`你> ${text}`);
  const userMessage = { role: "user" as const, content: text };
  context.messages.push(userMessage);
  session.append(userMessage);
  const controller = new AbortController();
  const events = runWithRetry({
    streamFn,
    context,
    tools,
    // cwd 是沙箱：write、edit、bash 都只在这里面动手
    toolContext: { cwd: sandbox, signal: controller.signal, timeoutMs: 120_000, beforeToolCall: host.toolCalls.gate(scriptedUi(answers)) },
    signal: controller.signal,
  });
  await renderEvents(withExtensions(session.record(events), host));
  console.log();
}

/** 最近一条 name 工具的结果，整段（屏幕上的 [工具结果] 只显示第一行）。 */
function lastResultOf(name: string): string {
  const result = context.messages.findLast((message) => message.role === "toolResult" && message.toolName === name);
  return result?.role === "toolResult" ? result.content : "（没有）";
}


console.log("Mini Agent Harness · step10 coding-tools（demo）");
console.log(`已加载扩展：${host.loaded.join("、")}（bash、write、edit 执行之前先问；这里由 demo 按剧本回答）`);
console.log(`可用工具：${tools.names().join("、")}`);
console.log("模型服务：本地脚本服务器（127.0.0.1 上的随机端口），按 rules.ts 的剧本回答");
console.log("沙箱：系统临时目录里的一个新目录（位置每次不同，不打印），里面只有 notes.txt，行尾是 CRLF；仓库里的文件一个都不碰");

// ── 场景 1 ─────────────────────────────────────────────────────
console.log("\n=== 场景 1：edit，oldText 只出现一次 ===\n");
await say("把 notes.txt 里的「# 第 8.8 章的待办」改成「# 第 8.8 章：编程工具」", [true]);
console.log(`notes.txt 的第一行现在是：${notes().split("\r\n")[0]}`);

// ── 场景 2 ─────────────────────────────────────────────────────
console.log("\n=== 场景 2：edit，oldText 出现了两处：出错、文件不动，带上整行再试 ===\n");
const before = notes();
notesAtQuestion.length = 0;
await say("把 notes.txt 里的「TODO」改成「DONE」，那一行是「- TODO 写 edit 工具」", [true, true]);
const failed = context.messages.find((message) => message.role === "toolResult" && message.toolName === "edit" && message.isError);
console.log(`第一次的错误结果：「${failed?.role === "toolResult" ? failed.content : "（没有）"}」`);
console.log(`第二次发问时（第一次失败之后）文件与这一场景开始时逐字节相同：${notesAtQuestion[1] === before ? "是" : "否"}`);
console.log("现在的 notes.txt：");
for (const line of notes().split("\r\n")) if (line !== "") console.log(`  ${line}`);
console.log(`行尾仍然都是 CRLF：${notes().split("\n").slice(0, -1).every((line) => line.endsWith("\r")) ? "是" : "否"}`);

// ── 场景 3 ─────────────────────────────────────────────────────
console.log("\n=== 场景 3：bash，闸门问了，回答「不」 ===\n");
await say('运行 node -e "console.log(6*7)"', [false]);
console.log(`模型收到的工具结果就是闸门给的理由：「${lastResultOf("bash")}」`);

// ── 场景 4 ─────────────────────────────────────────────────────
console.log("\n=== 场景 4：同一条命令，回答「是」 ===\n");
await say('运行 node -e "console.log(6*7)"', [true]);
console.log("模型收到的完整工具结果（输出、空一行、退出码）：");
for (const line of lastResultOf("bash").split("\n")) console.log(line === "" ? "" : `  ${line}`);

await server.close();
fs.rmSync(sandbox, { recursive: true, force: true, maxRetries: 10 });
