/**
 * edit：精确、唯一、不重叠；出错时说出几处、文件一个字节都不动；CRLF 与 BOM 原样留下。
 * 直接调用注册表的 execute（参数校验也走一遍），在测试进程里。
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

import { applyEdits } from "../../src/tools/edit.js";
import { createBuiltinTools } from "../../src/tools/index.js";
import { tempProject } from "../helpers/coding.js";

const tools = createBuiltinTools();
let id = 0;
const edit = (cwd: string, args: Record<string, unknown>) => tools.execute({ type: "toolCall", id: `e${++id}`, name: "edit", arguments: args }, { cwd });
const one = (oldText: string, newText: string) => [{ oldText, newText }];

describe("edit：成功的情形", () => {
  it("唯一匹配：替换，结果说改了几处", async () => {
    const dir = tempProject({ "a.txt": "第一版\n第二段\n" });
    const result = await edit(dir, { path: "a.txt", edits: one("第一版", "第二版") });
    expect(result).toMatchObject({ content: "已修改 a.txt：替换了 1 处" });
    expect(result.isError).toBeUndefined();
    expect(fs.readFileSync(path.join(dir, "a.txt"), "utf8")).toBe("第二版\n第二段\n");
  });

  it("几处一起改：都对照原文件匹配（前一处的替换不影响后一处），从后往前换", async () => {
    const dir = tempProject({ "a.txt": "alpha beta gamma" });
    await edit(dir, { path: "a.txt", edits: [{ oldText: "gamma", newText: "G" }, { oldText: "alpha", newText: "gamma alpha" }] });
    expect(fs.readFileSync(path.join(dir, "a.txt"), "utf8")).toBe("gamma alpha beta G");
  });

  it("首尾相接不算重叠", () => {
    expect(applyEdits("abcd", [{ oldText: "ab", newText: "1" }, { oldText: "cd", newText: "2" }], "x")).toEqual({ ok: true, text: "12" });
  });

  it("CRLF 的文件还是 CRLF：oldText、newText 里写的是 \\n，插进去的新行也是 CRLF", async () => {
    const dir = tempProject({ "w.txt": "one\r\ntwo\r\nthree\r\n" });
    await edit(dir, { path: "w.txt", edits: one("one\ntwo", "ONE\nTWO\nX") });
    expect(fs.readFileSync(path.join(dir, "w.txt"), "utf8")).toBe("ONE\r\nTWO\r\nX\r\nthree\r\n");
  });

  it("开头的 BOM 还在；只有 LF 的文件不会变出 CR", async () => {
    const dir = tempProject({ "b.txt": "\uFEFFone\ntwo\n" });
    await edit(dir, { path: "b.txt", edits: one("one\r\ntwo", "1\n2") });
    expect(fs.readFileSync(path.join(dir, "b.txt"))).toEqual(Buffer.from("\uFEFF1\n2\n"));
  });
});

describe("edit：出错时文件一个字节都不动", () => {
  const ORIGINAL = "- TODO 写测试\r\n- TODO 写文档\r\n完成\r\n";
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ["没找到：说 0 处", { path: "n.txt", edits: one("TODO 写代码", "x") }, "在 n.txt 里没找到 oldText（0 处）：它必须与文件内容逐字相同，包括空格、缩进与换行"],
    ["出现多处：说出几处", { path: "n.txt", edits: one("TODO", "DONE") }, "oldText 在 n.txt 里出现了 2 处，必须唯一：多带几行上下文，让它只出现一次"],
    ["多处编辑里的一处不唯一：点名是第几个", { path: "n.txt", edits: [{ oldText: "完成", newText: "x" }, { oldText: "- TODO", newText: "y" }] }, "edits[1].oldText 在 n.txt 里出现了 2 处"],
    ["两处重叠", { path: "n.txt", edits: [{ oldText: "写测试\n- TODO", newText: "a" }, { oldText: "TODO 写文档", newText: "b" }] }, "edits[0] 与 edits[1] 在 n.txt 里重叠"],
    ["oldText 是空的", { path: "n.txt", edits: one("", "x") }, "oldText 不能为空"],
    ["edits 是空的", { path: "n.txt", edits: [] }, "edits 不能是空的"],
    ["替换前后一样", { path: "n.txt", edits: one("完成", "完成") }, "没有任何变化"],
    ["参数不合格：edits 里的一项缺 newText", { path: "n.txt", edits: [{ oldText: "完成" }] }, "参数不合法：缺少必填参数 edits[0].newText"],
    ["参数不合格：oldText 不是字符串", { path: "n.txt", edits: [{ oldText: 1, newText: "x" }] }, "参数不合法：参数 edits[0].oldText 应为 string，实际是 number"],
    ["文件不存在：提示新建用 write", { path: "没有.txt", edits: one("a", "b") }, "文件不存在：没有.txt（edit 只改已有的文件，新建请用 write）"],
  ];
  it.each(cases)("%s", async (_name, args, message) => {
    const dir = tempProject({ "n.txt": ORIGINAL });
    const result = await edit(dir, args);
    expect(result.isError).toBe(true);
    expect(result.content).toContain(message);
    expect(fs.readFileSync(path.join(dir, "n.txt"), "utf8")).toBe(ORIGINAL);
  });

  it("不是 UTF-8 的文件（GBK 编码的中文）：不改，说清楚为什么", async () => {
    const gbk = Buffer.from([0xc4, 0xe3, 0xba, 0xc3, 0x0a]); // 「你好」的 GBK 编码
    const dir = tempProject({ "gbk.txt": gbk });
    const result = await edit(dir, { path: "gbk.txt", edits: one("a", "b") });
    expect(result).toMatchObject({ isError: true, content: expect.stringContaining("不是 UTF-8 文本") });
    expect(fs.readFileSync(path.join(dir, "gbk.txt"))).toEqual(gbk);
  });

  it("目录不能 edit", async () => {
    const dir = tempProject({ "sub/a.txt": "x" });
    expect(await edit(dir, { path: "sub", edits: one("a", "b") })).toMatchObject({ isError: true, content: "sub 不是普通文件" });
  });
});

describe("edit 与取消", () => {
  it("已经取消：读之前、算好之后都会看，文件不动", async () => {
    const dir = tempProject({ "a.txt": "abc" });
    const controller = new AbortController();
    controller.abort();
    const result = await tools.execute({ type: "toolCall", id: "c", name: "edit", arguments: { path: "a.txt", edits: one("b", "B") } }, { cwd: dir, signal: controller.signal });
    expect(result).toMatchObject({ isError: true });
    expect(fs.readFileSync(path.join(dir, "a.txt"), "utf8")).toBe("abc");
  });
});
