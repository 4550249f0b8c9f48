import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createBuiltinTools } from "../../src/tools/index.js";
import { isInside } from "../../src/tools/project-path.js";
import { MAX_FILE_BYTES } from "../../src/tools/read-file.js";

// 目录布局：base/step07 是项目根；base/step07-x 是名字带相同前缀的兄弟目录，专门用来骗 startsWith
const base = fs.mkdtempSync(path.join(os.tmpdir(), "read-file-"));
const root = path.join(base, "step07");
const sibling = path.join(base, "step07-x");
fs.mkdirSync(path.join(root, "sub"), { recursive: true });
fs.mkdirSync(sibling);
fs.writeFileSync(path.join(root, "notes.txt"), "你好，harness\n");
fs.writeFileSync(path.join(root, "sub", "deep.txt"), "deep");
fs.writeFileSync(path.join(root, "exact.txt"), "a".repeat(MAX_FILE_BYTES));
fs.writeFileSync(path.join(root, "big.txt"), "a".repeat(MAX_FILE_BYTES + 1));
fs.writeFileSync(path.join(sibling, "secret.txt"), "不该被读到");

/** 试着建一个链接；建不了（例如 Windows 上没有权限时的 EPERM）就返回原因，对应的测试跳过。 */
function tryLink(target: string, link: string, type: "file" | "junction"): string | undefined {
  try {
    fs.symlinkSync(target, link, type);
    return undefined;
  } catch (error) {
    const reason = `无法创建符号链接（${(error as NodeJS.ErrnoException).code ?? String(error)}），跳过相关测试`;
    console.warn(reason);
    return reason;
  }
}
const fileLinkProblem = tryLink(path.join(sibling, "secret.txt"), path.join(root, "link.txt"), "file");
// junction 在 Windows 上不需要管理员权限；在其他系统上 type 参数会被忽略，就是普通的目录链接
const dirLinkProblem = tryLink(sibling, path.join(root, "linkdir"), "junction");
const innerLinkProblem = tryLink(path.join(root, "notes.txt"), path.join(root, "inner-link.txt"), "file");
const rootLinkProblem = tryLink(root, path.join(base, "root-link"), "junction");

afterAll(() => {
  fs.rmSync(base, { recursive: true, force: true, maxRetries: 10 });
});

/** 通过注册表调用 read_file，cwd 默认是项目根。 */
async function read(requested: string, cwd = root) {
  return createBuiltinTools().execute({ type: "toolCall", id: "r", name: "read_file", arguments: { path: requested } }, { cwd });
}

/** 断言是错误结果，内容正好是 message，并且没有泄露本机的临时目录路径。 */
async function expectRefused(requested: string, message: string) {
  const result = await read(requested);
  expect(result.isError).toBe(true);
  expect(result.content).toBe(message);
  if (!path.isAbsolute(requested)) expect(result.content).not.toContain(base);
}

describe("read_file：正常读取", () => {
  it("读出项目里的文本文件", async () => {
    expect(await read("notes.txt")).toEqual({ role: "toolResult", toolCallId: "r", toolName: "read_file", content: "你好，harness\n" });
  });

  it("子目录、./ 前缀、在里面绕一圈的 .. 都可以", async () => {
    expect((await read("sub/deep.txt")).content).toBe("deep");
    expect((await read("./notes.txt")).content).toBe("你好，harness\n");
    expect((await read("sub/../notes.txt")).content).toBe("你好，harness\n");
  });

  it("恰好 64 KiB 的文件可以读", async () => {
    const result = await read("exact.txt");
    expect(result.isError).toBeUndefined();
    expect(result.content).toHaveLength(MAX_FILE_BYTES);
  });

  it.skipIf(innerLinkProblem !== undefined)("指向项目里面的符号链接可以读", async () => {
    expect((await read("inner-link.txt")).content).toBe("你好，harness\n");
  });

  it.skipIf(rootLinkProblem !== undefined)("项目根本身在符号链接后面也能正常读", async () => {
    expect((await read("notes.txt", path.join(base, "root-link"))).content).toBe("你好，harness\n");
  });
});

describe("read_file：挡住项目目录之外", () => {
  it("拒绝 .. 逃逸", async () => {
    await expectRefused("../x", "不能读取项目目录之外的文件：../x");
    await expectRefused("sub/../../x", "不能读取项目目录之外的文件：sub/../../x");
    await expectRefused("..", "不能读取项目目录之外的文件：..");
  });

  it("拒绝名字带相同前缀的兄弟目录", async () => {
    await expectRefused("../step07-x/secret.txt", "不能读取项目目录之外的文件：../step07-x/secret.txt");
  });

  it("拒绝绝对路径，连指向项目里面的也不行", async () => {
    await expectRefused("/etc/passwd", "不能使用绝对路径：/etc/passwd（请给出相对于项目目录的路径）");
    await expectRefused("C:\\Windows\\win.ini", "不能使用绝对路径：C:\\Windows\\win.ini（请给出相对于项目目录的路径）");
    await expectRefused("\\\\server\\share\\x", "不能使用绝对路径：\\\\server\\share\\x（请给出相对于项目目录的路径）");
    const inside = path.join(root, "notes.txt");
    await expectRefused(inside, `不能使用绝对路径：${inside}（请给出相对于项目目录的路径）`);
  });

  it.skipIf(fileLinkProblem !== undefined)("拒绝指向外面的文件符号链接", async () => {
    await expectRefused("link.txt", "不能读取项目目录之外的文件：link.txt（符号链接指向了外面）");
  });

  it.skipIf(dirLinkProblem !== undefined)("拒绝经过指向外面的目录链接", async () => {
    await expectRefused("linkdir/secret.txt", "不能读取项目目录之外的文件：linkdir/secret.txt（符号链接指向了外面）");
  });
});

describe("read_file：其他错误", () => {
  it("文件不存在", async () => {
    await expectRefused("nope.txt", "文件不存在：nope.txt");
    await expectRefused("notes.txt/x", "文件不存在：notes.txt/x");
  });

  it("目录不能读", async () => {
    await expectRefused("sub", "sub 是一个目录");
    await expectRefused(".", ". 是一个目录");
  });

  it("超过 64 KiB 的文件不读", async () => {
    await expectRefused("big.txt", "文件太大（65537 字节，上限 65536）");
  });

  it("空路径", async () => {
    await expectRefused("", "路径不能为空");
  });
});

describe("isInside：按路径分段判断，而不是比字符串前缀", () => {
  it("POSIX 规则", () => {
    const p = path.posix;
    expect(isInside("/a/step07", "/a/step07", p)).toBe(true);
    expect(isInside("/a/step07", "/a/step07/src/x.ts", p)).toBe(true);
    expect(isInside("/a/step07", "/a/step07/..notes", p)).toBe(true);
    expect(isInside("/a/step07", "/a/step07-x/secret", p)).toBe(false);
    expect(isInside("/a/step07", "/a", p)).toBe(false);
    expect(isInside("/a/step07", "/etc/passwd", p)).toBe(false);
  });

  it("Windows 规则：跨盘符、大小写、前缀相同的兄弟目录", () => {
    const w = path.win32;
    expect(isInside("C:\\work\\step07", "C:\\work\\step07\\src\\x.ts", w)).toBe(true);
    expect(isInside("C:\\work\\step07", "c:\\WORK\\Step07\\x.ts", w)).toBe(true);
    expect(isInside("C:\\work\\step07", "D:\\work\\step07\\x.ts", w)).toBe(false);
    expect(isInside("C:\\work\\step07", "C:\\work\\step07-x\\secret", w)).toBe(false);
    expect(isInside("C:\\work\\step07", "C:\\work", w)).toBe(false);
  });
});
