// 工具层的边角：变异测试（npm run mutation）找出来的、别的测试没有测到的路径。
// 文件系统的错误码（EACCES、ELOOP……）以 root 运行时造不出来，在进程内换掉 fs/promises 的函数来造：
// 内置模块的命名导出用 syncBuiltinESMExports() 同步，src 里的 import { realpath } 随之换掉，测完换回。
import { getEventListeners } from "node:events";
import fs from "node:fs";
import fsp from "node:fs/promises";
import { syncBuiltinESMExports } from "node:module";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";

import { evaluate } from "../../src/tools/calc.js";
import { createBuiltinTools } from "../../src/tools/index.js";
import { readFileTool } from "../../src/tools/read-file.js";
import { ToolRegistry, type ToolDefinition } from "../../src/tools/types.js";

const root = fs.mkdtempSync(path.join(os.tmpdir(), "tools-edges-"));
fs.writeFileSync(path.join(root, "a.txt"), "内容");
afterAll(() => {
  fs.rmSync(root, { recursive: true, force: true, maxRetries: 10 });
});

const originals = { realpath: fsp.realpath, stat: fsp.stat };
afterEach(() => {
  Object.assign(fsp, originals);
  syncBuiltinESMExports();
});

/** 展开 a.txt 的路径时失败，错误码为 code（undefined：错误对象没有 code）。 */
function failRealpath(code: string | undefined): void {
  fsp.realpath = (async (p: fs.PathLike, options?: unknown) => {
    if (String(p).endsWith("a.txt")) throw Object.assign(new Error("模拟的故障"), code === undefined ? {} : { code });
    return originals.realpath(p, options as never);
  }) as typeof fsp.realpath;
  syncBuiltinESMExports();
}

async function read(requested: string) {
  return createBuiltinTools().execute({ type: "toolCall", id: "r", name: "read_file", arguments: { path: requested } }, { cwd: root });
}

describe("read_file：文件系统的错误说成一句话，只带模型给的路径", () => {
  it.each([
    ["EACCES", "没有权限读取：a.txt"],
    ["EPERM", "没有权限读取：a.txt"],
    ["ELOOP", "符号链接绕成了环：a.txt"],
    ["EIO", "无法读取 a.txt（EIO）"],
    [undefined, "无法读取 a.txt（未知错误）"],
  ])("%s", async (code, message) => {
    failRealpath(code);
    expect(await read("a.txt")).toEqual({ role: "toolResult", toolCallId: "r", toolName: "read_file", content: message, isError: true });
  });

  it("抛出来的根本不是错误对象（undefined）：照样说成一句话", async () => {
    fsp.realpath = (async () => {
      throw undefined;
    }) as typeof fsp.realpath;
    syncBuiltinESMExports();
    expect(await read("a.txt")).toMatchObject({ content: "无法读取 a.txt（未知错误）", isError: true });
  });

  it("不经注册表、不带 signal 直接调用：失败照样说成一句话", async () => {
    expect(await readFileTool.execute({ path: "没有.txt" }, { cwd: root })).toEqual({ content: "文件不存在：没有.txt", isError: true });
  });

  it("只有空白的路径算空路径", async () => {
    expect(await read("   ")).toMatchObject({ content: "路径不能为空", isError: true });
  });

  it("既不是目录也不是普通文件（管道、设备、套接字）：不读", async () => {
    fsp.stat = (async (p: fs.PathLike) => {
      const info = await originals.stat(p);
      return Object.assign(Object.create(Object.getPrototypeOf(info)), info, { isFile: () => false, isDirectory: () => false });
    }) as typeof fsp.stat;
    syncBuiltinESMExports();
    expect(await read("a.txt")).toMatchObject({ content: "a.txt 不是普通文件", isError: true });
  });

  it("换回来之后照常读（确认上面换掉的确实是 src 用的那个函数）", async () => {
    expect((await read("a.txt")).content).toBe("内容");
  });
});

describe("内置工具的说明（交给模型的就是它们）", () => {
  it("名字、说明与参数的 JSON Schema（前两个；write、edit、bash 见下一个用例）", () => {
    expect(createBuiltinTools().specs().slice(0, 2)).toEqual([
      {
        name: "calc",
        description: "计算一个四则运算表达式，支持 + - * / %、括号和小数，例如 (1+2)*3.5",
        parameters: {
          type: "object",
          properties: { expression: { type: "string", description: "要计算的表达式，例如 17*38 或 (1+2)/3" } },
          required: ["expression"],
          additionalProperties: false,
        },
      },
      {
        name: "read_file",
        description: "读取项目目录里的一个文本文件，返回文件内容",
        parameters: {
          type: "object",
          properties: { path: { type: "string", description: "相对于项目根目录的文件路径，例如 src/main.ts" } },
          required: ["path"],
          additionalProperties: false,
        },
      },
    ]);
  });

  it("write、edit、bash 的名字与参数照 Pi 1.6.0：write { path, content }、edit { path, edits: [{ oldText, newText }] }、bash { command, timeout? }", () => {
    const specs = createBuiltinTools().specs().slice(2);
    const shape = (parameters: Record<string, unknown>): unknown => {
      const properties = parameters.properties as Record<string, { type: string; items?: Record<string, unknown> }>;
      return { required: parameters.required, properties: Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, v.items ? [v.type, shape(v.items)] : v.type])) };
    };
    expect(specs.map((spec) => [spec.name, shape(spec.parameters)])).toEqual([
      ["write", { required: ["path", "content"], properties: { path: "string", content: "string" } }],
      ["edit", { required: ["path", "edits"], properties: { path: "string", edits: ["array", { required: ["oldText", "newText"], properties: { oldText: "string", newText: "string" } }] } }],
      ["bash", { required: ["command"], properties: { command: "string", timeout: "number" } }],
    ]);
    // 工具说明说出这台机器上用的是哪个 shell：Windows 上是 cmd.exe，名字仍叫 bash
    expect(specs[2]!.description).toContain(process.platform === "win32" ? "cmd.exe" : "/bin/sh");
  });

  it("显式写成 undefined 的参数视同没传：不算多余，也不查类型", async () => {
    const run = (args: Record<string, unknown>) => createBuiltinTools().execute({ type: "toolCall", id: "r", name: "read_file", arguments: args }, { cwd: root });
    expect((await run({ path: "a.txt", extra: undefined })).content).toBe("内容");
  });

  it("read_file 不收多余的参数，也不能少了 path", async () => {
    const run = (args: Record<string, unknown>) => createBuiltinTools().execute({ type: "toolCall", id: "r", name: "read_file", arguments: args }, { cwd: root });
    expect(await run({ path: "a.txt", extra: 1 })).toMatchObject({ isError: true });
    expect(await run({})).toMatchObject({ isError: true });
    expect((await run({ path: "a.txt" })).content).toBe("内容");
  });
});

describe("ToolRegistry：扩展写错的工具", () => {
  const call = (registry: ToolRegistry, name: string) => registry.execute({ type: "toolCall", id: "t", name, arguments: {} }, { cwd: root });

  it("没有 parameters（或是 null）：说清楚，不去校验、不执行", async () => {
    for (const parameters of [undefined, null]) {
      let ran = false;
      const registry = new ToolRegistry();
      registry.register({ name: "bad", description: "d", parameters, execute: () => ((ran = true), { content: "x" }) } as unknown as ToolDefinition);
      expect(await call(registry, "bad")).toEqual({
        role: "toolResult",
        toolCallId: "t",
        toolName: "bad",
        content: "工具 bad 没有 parameters（参数的 JSON Schema），无法校验参数",
        isError: true,
      });
      expect(ran).toBe(false);
    }
  });

  it("返回值不是 { content: 字符串 }：太长的截到 60 个字符，JSON 表示不了的只说类型", async () => {
    const returning = (value: unknown) => {
      const registry = new ToolRegistry();
      registry.register({ name: "odd", description: "d", parameters: { type: "object", properties: {} }, execute: () => value as never });
      return call(registry, "odd");
    };
    const long = { content: 1, note: "x".repeat(100) };
    expect((await returning(long)).content).toBe(`工具 odd 没有返回 { content: 字符串 }，收到的是 ${JSON.stringify(long).slice(0, 60)}…`);
    const exact = "y".repeat(58); // JSON 里连引号正好 60 个字符：不截
    expect((await returning(exact)).content).toBe(`工具 odd 没有返回 { content: 字符串 }，收到的是 "${exact}"`);
    expect((await returning(10n)).content).toBe("工具 odd 没有返回 { content: 字符串 }，收到的是 bigint");
    expect((await returning(() => 1)).content).toBe("工具 odd 没有返回 { content: 字符串 }，收到的是 function");
    expect((await returning(undefined)).content).toBe("工具 odd 没有返回 { content: 字符串 }，收到的是 undefined（是不是忘了 return？）");
    expect((await returning(null)).content).toBe("工具 odd 没有返回 { content: 字符串 }，收到的是 null");
  });

  it("信号已经取消、工具因此抛出：说成「被取消」，不是一句 This operation was aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    const registry = new ToolRegistry();
    registry.register({
      name: "careful",
      description: "d",
      parameters: { type: "object", properties: {} },
      execute: (_args, context) => {
        context.signal?.throwIfAborted();
        return { content: "不该到这里" };
      },
    });
    const result = await registry.execute({ type: "toolCall", id: "t", name: "careful", arguments: {} }, { cwd: root, signal: controller.signal });
    expect(result).toEqual({ role: "toolResult", toolCallId: "t", toolName: "careful", content: "工具 careful 被取消", isError: true });
  });

  it("每次调用结束都拆掉挂在回复信号上的监听器", async () => {
    const controller = new AbortController();
    const registry = createBuiltinTools();
    for (let i = 0; i < 3; i++) {
      await registry.execute({ type: "toolCall", id: "c", name: "calc", arguments: { expression: "1+1" } }, { cwd: root, signal: controller.signal, timeoutMs: 60_000 });
    }
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });
});

describe("calc 的边角", () => {
  it("多位整数的小数、只有小数点后面的数；乘以 0 不是除以 0", () => {
    expect(evaluate("12.5*2")).toBe(25);
    expect(evaluate(".25*4")).toBe(1);
    expect(evaluate("2*0")).toBe(0);
  });

  it("括号深度只数嵌套的层数，并列的括号不累加", () => {
    expect(evaluate("(1)+".repeat(45) + "1")).toBe(46); // 181 个字符：不超过长度上限
  });

  it("不该出现的记号、提前结束的表达式：抛出 Error，说清楚是哪个、在哪里", () => {
    // 不用 toThrow(文字)：抛出的若是 undefined，它也照样通过
    const thrown = (expression: string): unknown => {
      try {
        evaluate(expression);
      } catch (error) {
        return error;
      }
      return "没有抛出";
    };
    expect(thrown("*2")).toEqual(new Error('意外的 "*"（位置 1）'));
    expect(thrown("(1 2)")).toEqual(new Error('意外的 "2"（位置 4）'));
    expect(thrown("1+")).toEqual(new Error("表达式不完整，末尾缺少数字"));
  });
});
