/**
 * extensions/permission-gate.ts：bash、write、edit 之前问；没有终端就阻止并说怎么放行；在问题上按 Ctrl+C 等于「不」。
 * 以及有终端时的界面（terminal-ui.ts）：问题打出来，从 readline 读回答。都在测试进程里。
 */
import path from "node:path";
import readline from "node:readline";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";

import { ExtensionHost, loadExtension } from "../src/extensions.js";
import { terminalUi } from "../src/terminal-ui.js";
import { NO_UI, type ExtensionUIContext, type Ui } from "../src/tool-call.js";
import { ToolRegistry } from "../src/tools/types.js";
import { stepRoot } from "./helpers/cli.js";

const GATE = path.join(stepRoot, "extensions", "permission-gate.ts");

/** 一个装好闸门的注册表；三个要问的工具与一个不问的，都只记下自己被执行了。 */
async function gated(): Promise<{ tools: ToolRegistry; host: ExtensionHost; ran: string[] }> {
  const tools = new ToolRegistry();
  const ran: string[] = [];
  for (const name of ["bash", "write", "edit", "read_file"]) {
    tools.register({ name, description: name, parameters: { type: "object" }, execute: () => (ran.push(name), { content: `${name} 执行了` }) });
  }
  const host = new ExtensionHost(tools);
  await loadExtension(GATE, host);
  return { tools, host, ran };
}

/** 照剧本回答的界面：记下问了什么。 */
function answering(...answers: boolean[]): Ui & { asked: string[] } {
  const asked: string[] = [];
  const ui: ExtensionUIContext = {
    confirm: async (title, message) => (asked.push(`${title} ${message}`), answers.shift() ?? false),
    select: async () => undefined,
    notify: () => {},
  };
  return { hasUI: true, ui, asked };
}

const call = (tools: ToolRegistry, host: ExtensionHost, name: string, args: Record<string, unknown>, ui: Ui, signal?: AbortSignal) =>
  tools.execute({ type: "toolCall", id: "g", name, arguments: args }, { cwd: ".", signal, beforeToolCall: host.toolCalls.gate(ui) });

describe("permission-gate.ts", () => {
  it("没有终端：bash 被阻止，理由说出命令与怎么放行；工具没有执行", async () => {
    const { tools, host, ran } = await gated();
    const result = await call(tools, host, "bash", { command: "rm -rf build" }, NO_UI);
    expect(result).toMatchObject({
      isError: true,
      content: "没有终端，没法问人能不能运行 bash（rm -rf build），所以没有运行。要允许：在终端里运行 npm start；或者不加载 extensions/permission-gate.ts",
    });
    expect(ran).toEqual([]);
  });

  it("有终端：bash 问命令，write、edit 问路径；回答「是」就执行，「不」就阻止", async () => {
    const { tools, host, ran } = await gated();
    const ui = answering(true, false, true);
    expect((await call(tools, host, "bash", { command: "npm test" }, ui)).content).toBe("bash 执行了");
    expect(await call(tools, host, "write", { path: "a.txt", content: "x" }, ui)).toMatchObject({ isError: true, content: "用户没有允许运行 write（a.txt）" });
    expect((await call(tools, host, "edit", { path: "b.txt", edits: [] }, ui)).content).toBe("edit 执行了");
    expect(ui.asked).toEqual(["允许运行 bash？ npm test", "允许运行 write？ a.txt", "允许运行 edit？ b.txt"]);
    expect(ran).toEqual(["bash", "edit"]);
  });

  it("只读的工具不问", async () => {
    const { tools, host, ran } = await gated();
    const ui = answering();
    await call(tools, host, "read_file", { path: "a.txt" }, ui);
    expect(ui.asked).toEqual([]);
    expect(ran).toEqual(["read_file"]);
  });

  it("在问题上按 Ctrl+C：confirm 拿到这一轮的 signal，问题收起；宿主不再等闸门，工具不执行", async () => {
    const { tools, host, ran } = await gated();
    const controller = new AbortController();
    let given: AbortSignal | undefined;
    const ui: Ui = {
      hasUI: true,
      ui: {
        ...NO_UI.ui,
        confirm: (_title, _message, opts) =>
          new Promise((resolve) => {
            given = opts?.signal;
            opts?.signal?.addEventListener("abort", () => resolve(false));
            controller.abort(); // 用户按下 Ctrl+C
          }),
      },
    };
    const result = await call(tools, host, "bash", { command: "sleep 30" }, ui, controller.signal);
    expect(given).toBe(controller.signal);
    expect(result).toMatchObject({ isError: true, content: "这一轮已取消：扩展 permission-gate.ts 还没回答，工具没有执行" });
    expect(ran).toEqual([]);
  });

  it("闸门自己对 Ctrl+C 的回答（在 Pi 里模型收到的就是它）：阻止，理由说这一轮已取消", async () => {
    const { default: permissionGate } = (await import(GATE)) as { default: (pi: unknown) => void };
    let handler: ((event: unknown, ctx: unknown) => Promise<unknown>) | undefined;
    permissionGate({ on: (_event: string, fn: typeof handler) => (handler = fn) });
    const controller = new AbortController();
    controller.abort();
    const ctx = { hasUI: true, cwd: ".", signal: controller.signal, ui: { ...NO_UI.ui, confirm: async () => false } };
    expect(await handler!({ type: "tool_call", toolCallId: "c", toolName: "bash", input: { command: "ls" } }, ctx)).toEqual({ block: true, reason: "用户按了 Ctrl+C：没有运行 bash，这一轮已取消" });
  });
});

describe("terminal-ui.ts：有终端时的 ctx.ui", () => {
  function terminal(): { ui: Ui; input: PassThrough; shown: () => string } {
    const input = new PassThrough();
    const output = new PassThrough();
    let shown = "";
    output.on("data", (chunk: Buffer) => (shown += chunk.toString()));
    const rl = readline.createInterface({ input, output, terminal: false });
    return { ui: terminalUi(rl, (text) => output.write(text)), input, shown: () => shown };
  }

  it("confirm：打出问题（控制字符变成看得见的样子），y 是「是」，回车（默认）是「不」", async () => {
    const { ui, input, shown } = terminal();
    const first = ui.ui.confirm("允许运行 bash？", "echo \x1b[31m红");
    input.write("y\n");
    expect(await first).toBe(true);
    expect(shown()).toContain("[确认] 允许运行 bash？ echo \\x1b[31m红（y/N） ");
    const second = ui.ui.confirm("允许运行 bash？", "ls");
    input.write("\n");
    expect(await second).toBe(false);
  });

  it("confirm 被 signal 取消：不等回答，当作「不」", async () => {
    const { ui } = terminal();
    const controller = new AbortController();
    const pending = ui.ui.confirm("允许运行 bash？", "sleep 30", { signal: controller.signal });
    controller.abort();
    expect(await pending).toBe(false);
  });

  it("select：列出选项，按序号或原文选；notify 打一行", async () => {
    const { ui, input, shown } = terminal();
    const bySerial = ui.ui.select("用哪个？", ["甲", "乙"]);
    input.write("2\n");
    expect(await bySerial).toBe("乙");
    const byText = ui.ui.select("用哪个？", ["甲", "乙"]);
    input.write("甲\n");
    expect(await byText).toBe("甲");
    ui.ui.notify("小心", "warning");
    expect(shown()).toContain("[选择] 用哪个？\n  1. 甲\n  2. 乙\n");
    expect(shown()).toContain("[警告] 小心\n");
  });
});
