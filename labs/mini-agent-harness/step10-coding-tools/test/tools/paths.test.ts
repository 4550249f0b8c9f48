/**
 * 三个文件工具（read_file、write、edit）都只在项目目录里动手：绝对路径、`../`、指向外面的符号链接都被挡住，
 * 外面的文件一个字节不动、也不会在外面建出目录（检查在 mkdir 之前，比的是最深的已存在的那一级的真实路径）。
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";

import { createBuiltinTools } from "../../src/tools/index.js";
import { canSymlink, tempProject } from "../helpers/coding.js";

if (!canSymlink) console.warn("[跳过] 符号链接的用例：这台机器上无法创建符号链接（Windows 需要管理员或开发者模式）");

const tools = createBuiltinTools();
const call = (cwd: string, name: string, args: Record<string, unknown>) => tools.execute({ type: "toolCall", id: "p", name, arguments: args }, { cwd });

/** 三个工具各自怎么去碰 target。 */
const ATTEMPTS: Array<[string, (target: string) => Record<string, unknown>, string]> = [
  ["read_file", (target) => ({ path: target }), "读取"],
  ["write", (target) => ({ path: target, content: "x" }), "写入"],
  ["edit", (target) => ({ path: target, edits: [{ oldText: "秘密", newText: "被改了" }] }), "修改"],
];

/** 项目目录旁边的一个「外面」，里面有一个文件。 */
function outside(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "step10-外面-"));
  fs.writeFileSync(path.join(dir, "secret.txt"), "秘密");
  return dir;
}

describe.each(ATTEMPTS)("%s", (name, args, verb) => {
  it("../ 走出项目目录：挡住，外面不动", async () => {
    const base = tempProject({ "project/a.txt": "a", "secret.txt": "秘密" });
    const result = await call(path.join(base, "project"), name, args("../secret.txt"));
    expect(result).toMatchObject({ isError: true, content: `不能${verb}项目目录之外的文件：../secret.txt` });
    expect(fs.readFileSync(path.join(base, "secret.txt"), "utf8")).toBe("秘密");
  });

  it("绝对路径（两种平台的写法）：挡住", async () => {
    const dir = tempProject();
    for (const target of ["/etc/hosts", "C:\\Windows\\win.ini"]) {
      expect(await call(dir, name, args(target))).toMatchObject({ isError: true, content: `不能使用绝对路径：${target}（请给出相对于项目目录的路径）` });
    }
  });

  it.skipIf(!canSymlink)("指向外面的符号链接（目录）：挡住；write 也不会在外面建出目录", async () => {
    const dir = tempProject();
    const away = outside();
    try {
      fs.symlinkSync(away, path.join(dir, "link"), "junction");
      for (const target of ["link/secret.txt", "link/new/deeper.txt"]) {
        const result = await call(dir, name, args(target));
        expect(result).toMatchObject({ isError: true, content: `不能${verb}项目目录之外的文件：${target}（符号链接指向了外面）` });
      }
      expect(fs.readdirSync(away)).toEqual(["secret.txt"]);
      expect(fs.readFileSync(path.join(away, "secret.txt"), "utf8")).toBe("秘密");
    } finally {
      fs.rmSync(away, { recursive: true, force: true });
    }
  });

  it.skipIf(!canSymlink)("指向不存在之处的符号链接：挡住（往里写，文件会落在链接指向的地方）", async () => {
    const dir = tempProject();
    const away = outside();
    try {
      fs.symlinkSync(path.join(away, "not-yet.txt"), path.join(dir, "dangling.txt"), "file");
      const result = await call(dir, name, args("dangling.txt"));
      expect(result.isError).toBe(true);
      expect(fs.existsSync(path.join(away, "not-yet.txt"))).toBe(false);
    } finally {
      fs.rmSync(away, { recursive: true, force: true });
    }
  });

  it("名叫 ..notes 的文件仍在里面；sub/../ 绕回来也在里面", async () => {
    const dir = tempProject({ "sub/x": "" });
    for (const target of ["..notes", "sub/../..notes"]) {
      fs.writeFileSync(path.join(dir, "..notes"), "秘密");
      expect((await call(dir, name, args(target))).isError).toBeUndefined();
    }
  });
});
