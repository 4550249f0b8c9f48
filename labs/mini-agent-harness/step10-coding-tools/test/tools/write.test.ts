/**
 * write：建出上级目录、覆盖已有文件；取消只在动手之前的安全点上看，写完了就如实说写完了。
 * 路径限定在项目目录里的用例在 paths.test.ts（三个文件工具一起测）。
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

import { createBuiltinTools } from "../../src/tools/index.js";
import { writeTool } from "../../src/tools/write.js";
import { tempProject } from "../helpers/coding.js";

const tools = createBuiltinTools();
const write = (cwd: string, args: Record<string, unknown>, signal?: AbortSignal) => tools.execute({ type: "toolCall", id: "w", name: "write", arguments: args }, { cwd, signal });

describe("write", () => {
  it("上级目录不存在：建出来，再写", async () => {
    const dir = tempProject();
    const result = await write(dir, { path: "deep/er/笔记.md", content: "# 标题\n" });
    expect(result).toMatchObject({ content: "已写入 deep/er/笔记.md" });
    expect(result.isError).toBeUndefined();
    expect(fs.readFileSync(path.join(dir, "deep", "er", "笔记.md"), "utf8")).toBe("# 标题\n");
  });

  it("已有的文件：整个覆盖（内容原样，不改行尾）", async () => {
    const dir = tempProject({ "a.txt": "旧的内容，很长很长" });
    await write(dir, { path: "a.txt", content: "新\r\n" });
    expect(fs.readFileSync(path.join(dir, "a.txt"), "utf8")).toBe("新\r\n");
  });

  it("目标是目录：错误结果，什么也不动", async () => {
    const dir = tempProject({ "sub/x.txt": "x" });
    expect(await write(dir, { path: "sub", content: "y" })).toMatchObject({ isError: true, content: "sub 是一个目录" });
  });

  it("参数不合格（content 不是字符串）：不写", async () => {
    const dir = tempProject();
    expect(await write(dir, { path: "a.txt", content: 42 })).toMatchObject({ isError: true, content: "参数不合法：参数 content 应为 string，实际是 number" });
    expect(fs.existsSync(path.join(dir, "a.txt"))).toBe(false);
  });
});

describe("write 与取消（第四个取消点在工具里面）", () => {
  it("开始之前已经取消：不建目录、不写", async () => {
    const dir = tempProject();
    const controller = new AbortController();
    controller.abort();
    const output = await writeTool.execute({ path: "new/a.txt", content: "x" }, { cwd: dir, signal: controller.signal });
    expect(output).toEqual({ content: "写入被取消：new/a.txt（文件没有写）", isError: true });
    expect(fs.existsSync(path.join(dir, "new"))).toBe(false);
  });

  it("写完之后才看到取消：如实说「已写入」，不说「已取消」", async () => {
    const dir = tempProject();
    // 前两次（两个安全点）看到的是「没取消」，之后都是「已取消」：Ctrl+C 恰好落在写文件的那一刻
    let reads = 0;
    const signal = { get aborted() { return ++reads > 2; } } as AbortSignal;
    const output = await writeTool.execute({ path: "a.txt", content: "写好了" }, { cwd: dir, signal });
    expect(reads).toBe(2); // 写完之后没有再看
    expect(output).toEqual({ content: "已写入 a.txt" });
    expect(fs.readFileSync(path.join(dir, "a.txt"), "utf8")).toBe("写好了");
  });
});
