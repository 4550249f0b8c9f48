/**
 * 练习 5（第 8.3 章下半）：写一个只许看项目目录的工具 list_dir。
 *
 * 检查器在临时目录里搭一个小项目（旁边还有一个名字以项目名开头的「邻居」目录和一个指向外面的符号链接），
 * 把工具注册进步骤自己的 ToolRegistry，用注册表的 execute 调用它——参数先过 Schema 校验，和模型调用时一样。
 * 用 startsWith 判断「在不在项目里」的写法会把邻居目录 proj-secret 列出来；不展开符号链接的写法会被链接带出去。
 */

import fs from "node:fs";
import os from "node:os";
import path from "node:path";

import { attempt, expectThat, importFrom, loadExport, same, show } from "./helpers.ts";
import { GENERATED, generatedName, type Random } from "./random.ts";
import type { Check, Exercise } from "./types.ts";

interface ToolResult {
  content: string;
  isError?: boolean;
}
interface Registry {
  names(): string[];
  register(tool: unknown): void;
  execute(call: { type: "toolCall"; id: string; name: string; arguments: unknown }, ctx: { cwd: string }): Promise<ToolResult>;
}

const FILE = "exercises/list-dir.ts";

interface Fixture {
  base: string;
  proj: string;
  symlink: boolean;
  /** 随机用例：项目里一个名字现造的目录、它的期望列表，以及旁边另一个名字现造的邻居目录。 */
  fresh: { dir: string; listing: string; sub: string; neighbor: string };
}

/**
 * 名字现造的目录：几个文件和一个子目录，名字以不同的小写字母开头（这样按码点排序与按 localeCompare 排序一致），
 * 后面跟着汉字或字母。
 */
function freshDir(proj: string, base: string, random: Random): Fixture["fresh"] {
  const letters = random.shuffle([..."abcdefghijklmnopqrstuvwxyz"]);
  const word = () => random.text(random.int(1, 4), ["cjk", "ascii"]).toLowerCase();
  // 放在 links/ 里：项目根目录的列表（固定用例）不受影响
  const dir = `links/${letters[0]}${word()}`;
  const names = Array.from({ length: random.int(2, 5) }, (_, index) => `${letters[index + 1]}${word()}.${random.pick(["txt", "md", "ts"])}`);
  const sub = `${letters[names.length + 1]}${word()}`;
  fs.mkdirSync(path.join(proj, dir, sub), { recursive: true });
  for (const name of names) fs.writeFileSync(path.join(proj, dir, name), `${name}\n`);
  const neighbor = `proj${random.id(4)}`;
  fs.mkdirSync(path.join(base, neighbor));
  fs.writeFileSync(path.join(base, neighbor, "key.txt"), "secret\n");
  return { dir, sub, neighbor, listing: [...names, `${sub}/`].sort().join("\n") };
}

/** 搭一个小项目：proj/ 里有文件、子目录、空目录；旁边是不该被看到的 proj-secret/。 */
function makeFixture(random: Random): Fixture {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), "exercise-05-"));
  const proj = path.join(base, "proj");
  fs.mkdirSync(path.join(proj, "docs"), { recursive: true });
  fs.mkdirSync(path.join(proj, "empty"));
  fs.mkdirSync(path.join(proj, "links"));
  fs.writeFileSync(path.join(proj, "b.txt"), "b\n");
  fs.writeFileSync(path.join(proj, "a.md"), "a\n");
  fs.writeFileSync(path.join(proj, "docs", "guide.md"), "guide\n");
  fs.mkdirSync(path.join(base, "proj-secret"));
  fs.writeFileSync(path.join(base, "proj-secret", "key.txt"), "secret\n");
  let symlink = true;
  try {
    fs.symlinkSync(path.join(base, "proj-secret"), path.join(proj, "links", "out"), "dir");
  } catch {
    symlink = false; // Windows 上没有权限时建不了符号链接
  }
  return { base, proj, symlink, fresh: freshDir(proj, base, random) };
}

async function check(stepDir: string, random: Random): Promise<Check[]> {
  const loaded = await loadExport<{ name?: unknown }>(stepDir, FILE, "listDirTool", "object");
  if (loaded.value === undefined) return [loaded.check];
  const checks: Check[] = [loaded.check];
  const { createBuiltinTools } = await importFrom<{ createBuiltinTools(): Registry }>(stepDir, "src/tools/index.ts");
  const registry = createBuiltinTools();
  try {
    registry.register(loaded.value);
  } catch (error) {
    checks.push({ name: "能注册进步骤的 ToolRegistry", ok: false, saw: error instanceof Error ? error.message : String(error) });
    return checks;
  }
  const named = registry.names().includes("list_dir");
  checks.push(expectThat("能注册进步骤的 ToolRegistry，工具名是 list_dir", named, `注册表里的工具：${registry.names().join("、")}`));
  if (!named) return checks;

  const fixture = makeFixture(random);
  const call = (args: unknown) => registry.execute({ type: "toolCall", id: "check", name: "list_dir", arguments: args }, { cwd: fixture.proj });
  const leaks = (text: string) => text.includes(fixture.base) || text.includes("key.txt");
  try {
    const listings: Array<[string, string, string]> = [
      ["项目根目录：按名字排序，目录名后面带 /", ".", "a.md\nb.txt\ndocs/\nempty/\nlinks/"],
      ["子目录", "docs", "guide.md"],
      ["空目录", "empty", "（空目录）"],
      ["在里面绕一圈又回来的路径", "docs/../docs", "guide.md"],
    ];
    const { fresh } = fixture;
    listings.push(
      [generatedName(1, 3, "名字现造的目录：按名字排序，目录名后面带 /"), fresh.dir, fresh.listing],
      [generatedName(2, 3, "绕一圈又回来，子目录是空的"), `${fresh.dir}/../../${fresh.dir}/./${fresh.sub}`, "（空目录）"],
    );
    for (const [why, dir, expected] of listings) {
      const name = why.startsWith(GENERATED) ? `${why}：list_dir ${show({ path: dir })}` : `list_dir ${show({ path: dir })}（${why}）`;
      checks.push(
        ...(await attempt(name, async () => {
          const result = await call({ path: dir });
          return result.isError ? { name, ok: false, saw: `错误结果：${result.content}` } : same(name, result.content, expected);
        })),
      );
    }
    const refused: Array<[string, unknown, string]> = [
      ["Schema 要求 path：缺参数时由注册表拦下", {}, "缺少必填参数"],
      ["Schema 不收多余参数", { path: ".", all: true }, "不认识的参数"],
    ];
    for (const [why, args, expected] of refused) {
      const name = `list_dir ${show(args)} 被拒绝（${why}）`;
      checks.push(...(await attempt(name, async () => {
        const result = await call(args);
        return expectThat(name, result.isError === true && result.content.includes(expected), `${result.isError ? "错误结果" : "正常结果"} ${show(result.content)}`, `错误结果里有「${expected}」`);
      })));
    }
    const outside: Array<[string, string]> = [
      ["名字以项目名开头的邻居目录也在外面", "../proj-secret"],
      ["绝对路径", fixture.base],
      ["不是目录", "b.txt"],
      ["不存在", "nope"],
    ];
    if (fixture.symlink) outside.push(["符号链接指向项目外面", "links/out"]);
    outside.push([generatedName(3, 3, "名字现造的邻居目录"), `${fresh.dir}/../../../${fresh.neighbor}`]);
    for (const [why, dir] of outside) {
      const shownPath = show({ path: dir === fixture.base ? "<临时目录的绝对路径>" : dir });
      const name = why.startsWith(GENERATED) ? `${why}：list_dir ${shownPath} 返回错误结果，且不泄露外面的内容` : `list_dir ${shownPath} 返回错误结果，且不泄露外面的内容和本机路径（${why}）`;
      checks.push(...(await attempt(name, async () => {
        const result = await call({ path: dir });
        const shown = result.content.split(fixture.base).join("<临时目录>");
        return expectThat(name, result.isError === true && !leaks(result.content.replace(dir, "")), `${result.isError ? "错误结果" : "正常结果"} ${show(shown)}`);
      })));
    }
    if (!fixture.symlink) checks.push({ name: "list_dir {\"path\":\"links/out\"}（符号链接指向项目外面）", ok: false, skipped: "这台机器上建不了符号链接（Windows 需要开发者模式或管理员权限）" });
  } finally {
    fs.rmSync(fixture.base, { recursive: true, force: true, maxRetries: 10 });
  }
  return checks;
}

export const exercise05: Exercise = {
  id: 5,
  step: "step05-tools",
  chapter: "8.3",
  title: "写一个只许看项目目录的工具 list_dir",
  file: FILE,
  hints: [
    "和 read_file 是同一个问题：模型给的路径不可信。先按字面挡住绝对路径和 ..，再把符号链接展开后比一次；「在不在里面」不能靠比字符串开头。参数类型交给 Schema，工具里只查 Schema 表达不了的事。",
    "照着 src/tools/read-file.ts 的 readInsideRoot 写；它导出的 isInside(root, target) 可以直接拿来用。新文件 exercises/list-dir.ts 导出 listDirTool（import type { ToolDefinition } from \"../src/tools/types.js\"）。列目录用 fs/promises 的 readdir(dir, { withFileTypes: true })。",
    "export const listDirTool: ToolDefinition = {\n  name: \"list_dir\", description: \"…\",\n  parameters: { type: \"object\", properties: { path: { type: \"string\" } }, required: [\"path\"], additionalProperties: false },\n  async execute(args, context) {\n    // 1. 绝对路径（path 与 path.win32 都查）→ 错误\n    // 2. isInside(root, path.resolve(root, 请求的路径)) 不成立 → 错误\n    // 3. realpath 展开根目录和目标，再 isInside 一次；不是目录 → 错误\n    // 4. readdir 排序，目录名后加 /，空目录返回「（空目录）」；错误信息里只出现模型给的原路径\n  },\n};",
  ],
  check,
};
