/**
 * 练习检查器与参考答案（第 8 章每一章的练习）。
 *
 * 每个用例都在步骤的一份临时副本里进行，不动仓库里的文件：
 *   - 没动过的步骤：检查不通过，输出里有第一级提示；
 *   - 放进参考答案：全部通过；
 *   - 放进一种看上去合理的错误写法：检查器点名它没过的那一项；
 *   - 改了 src/：检查器说出改了哪个文件（没有 git 时按清单，有 git 时按 git）。
 */

import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";

import { walkFiles } from "../scripts/lib/walk-files.ts";
import { runCli } from "../scripts/lib/exercises/cli.ts";
import { EXERCISES } from "../scripts/lib/exercises/registry.ts";
import { formatReport, runExercise } from "../scripts/lib/exercises/run.ts";
import { checkSrcUnchanged, hashContent, manifestOf, readShippedManifest, type Manifest } from "../scripts/lib/exercises/src-unchanged.ts";
import { paint } from "../scripts/lib/color.ts";
import { passed, type Exercise, type Report } from "../scripts/lib/exercises/types.ts";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "..");
const realStep = (exercise: Exercise) => path.join(root, "labs", "mini-agent-harness", exercise.step);
const plain = paint(false);

/** 临时副本不在 git 里：用现算的清单核对 src/（清单文件本身是否最新，由下面单独一个测试管）。 */
const manifest: Manifest = Object.fromEntries(EXERCISES.map((exercise) => [exercise.step, manifestOf(realStep(exercise))]));

const temps: string[] = [];
afterEach(() => {
  for (const dir of temps.splice(0)) fs.rmSync(dir, { recursive: true, force: true, maxRetries: 10 });
});

/** 复制一个步骤（src、extensions、package.json）到临时目录，不带练习文件。 */
function copyStep(exercise: Exercise, base = fs.mkdtempSync(path.join(os.tmpdir(), `exercise-${exercise.id}-`))): string {
  if (!temps.includes(base)) temps.push(base);
  const dir = path.join(base, exercise.step);
  for (const name of ["src", "extensions", "package.json"]) {
    const from = path.join(realStep(exercise), name);
    if (fs.existsSync(from)) fs.cpSync(from, path.join(dir, name), { recursive: true });
  }
  // 学习者可能正在真实的步骤里做这个练习（例如 extensions/reverse.ts 已经写了一半）：副本里不要它
  fs.rmSync(path.join(dir, ...exercise.file.split("/")), { force: true });
  return dir;
}

const solutionFile = (exercise: Exercise) => path.join(here, exercise.step, ...exercise.file.split("/"));
const solutionSource = (exercise: Exercise) => fs.readFileSync(solutionFile(exercise), "utf8");

function write(dir: string, exercise: Exercise, source: string): void {
  const file = path.join(dir, ...exercise.file.split("/"));
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, source);
}

/** 在参考答案上做一处替换，得到一种错误写法；替换不上就让测试失败，免得答案改了之后错误写法悄悄变成正确写法。 */
function mutate(exercise: Exercise, from: string, to: string): string {
  const source = solutionSource(exercise);
  expect(source, `参考答案里找不到要替换的片段：${from}`).toContain(from);
  return source.replace(from, to);
}

const run = (exercise: Exercise, dir: string): Promise<Report> => runExercise(exercise, dir, { manifest });
const failing = (report: Report) => report.checks.filter((check) => !check.ok && check.skipped === undefined);
const text = (report: Report) => formatReport(report, root, plain);

/** 每个练习的一种看上去合理、其实不对的写法，以及它应当栽在哪一项（检查名里的一段）。 */
const WRONG: Record<number, { why: string; source: (exercise: Exercise) => string; failsAt: string }> = {
  2: {
    why: "取最后一条用户消息（那是这次的提问本身）",
    source: (e) => mutate(e, "said.at(-2)", "said.at(-1)"),
    failsAt: "只说过一句话时",
  },
  3: {
    why: "用 text.length 数字符",
    source: (e) => mutate(e, "chars: [...text].length", "chars: text.length"),
    failsAt: "字符数是 4",
  },
  4: {
    why: "不校验，直接 Math.max(...numbers)",
    source: () =>
      'export const maxTool = { name: "max", description: "最大值", parameters: { type: "object" },\n' +
      "  execute(args: Record<string, unknown>) { return { content: String(Math.max(...(args.numbers as number[]))) }; } };\n",
    failsAt: "空数组没有最大值",
  },
  5: {
    why: "用 startsWith 判断在不在项目里",
    source: (e) =>
      mutate(e, 'import { isInside } from "../src/tools/read-file.js";', "const isInside = (root: string, target: string): boolean => target.startsWith(root);"),
    failsAt: "邻居目录",
  },
  6: {
    why: "把文件里所有用户消息都列出来，不沿 parentId 走",
    source: (e) => mutate(e, "  return chain\n    .reverse()\n", "  return entries\n"),
    failsAt: "分叉",
  },
  7: {
    why: 'split("") 按 UTF-16 单元倒序，把 😀 拆成两半',
    source: (e) => mutate(e, "[...(args.text as string)].reverse()", '(args.text as string).split("").reverse()'),
    failsAt: "你好😀世界",
  },
  8: {
    why: "连接正常关闭就当作模型说完了（没查 done 行）",
    source: (e) => mutate(e, 'finish("error", "流在结束前中断：没有收到 done 行")', 'finish("stop")'),
    failsAt: "没有 \"done\": true 那一行",
  },
  9: {
    why: "把失败的 done 也转发给下游",
    source: (e) => mutate(e, "if (retry) failed = event.message;\n        else yield event;", "if (retry) failed = event.message;\n        yield event;"),
    failsAt: "两次之后成功",
  },
};

describe.each(EXERCISES.map((exercise) => [`练习 ${exercise.id}（第 ${exercise.chapter} 章，${exercise.step}）`, exercise] as const))("%s", (_, exercise) => {
  it("没动过的步骤：不通过，输出里有第一级提示和 --hint 的用法", async () => {
    const report = await run(exercise, copyStep(exercise));
    expect(report.notStarted).toBe(true);
    expect(passed(report)).toBe(false);
    expect(text(report)).toContain(exercise.hints[0]);
    expect(text(report)).toContain(`npm run exercise -- ${exercise.id} --hint`);
  });

  it("放进参考答案：全部检查通过，最后一项核对了 src/", async () => {
    const dir = copyStep(exercise);
    write(dir, exercise, solutionSource(exercise));
    const report = await run(exercise, dir);
    expect(failing(report), text(report)).toEqual([]);
    expect(passed(report)).toBe(true);
    expect(report.checks.length).toBeGreaterThanOrEqual(6);
    expect(report.checks.at(-1)?.name).toContain("src/");
    expect(text(report)).toMatch(new RegExp(`练习 ${exercise.id} 通过：(\\d+)/\\1 项检查全部通过`));
  });

  const wrong = WRONG[exercise.id];
  it(`一种错误写法（${wrong?.why ?? "缺"}）：检查器点名没过的那一项`, async () => {
    expect(wrong, "每个练习都要有一种错误写法").toBeDefined();
    if (!wrong) return;
    const dir = copyStep(exercise);
    write(dir, exercise, wrong.source(exercise));
    const report = await run(exercise, dir);
    expect(passed(report)).toBe(false);
    const names = failing(report).map((check) => check.name);
    expect(names.some((name) => name.includes(wrong.failsAt)), text(report)).toBe(true);
    const output = text(report);
    expect(output).toContain("看到：");
    expect(output).toContain(`第一项没通过的是「${failing(report)[0]?.name}」`);
    expect(output).toContain(`npm run exercise -- ${exercise.id} --hint`);
    expect(output).not.toContain(exercise.hints[2]);
  });

  it("练习文件放在测试、demo 与 golden 都不读的地方，名字在步骤里独一无二", () => {
    expect(exercise.file).not.toMatch(/^(src|test)\//);
    const step = realStep(exercise);
    const base = path.posix.basename(exercise.file);
    // 学习者自己的那个文件可能已经在了（做着练习跑 npm test），它不算重名
    expect(walkFiles(step).filter((file) => file !== exercise.file && path.posix.basename(file) === base)).toEqual([]);
    const readers = [...walkFiles(path.join(step, "src")).map((f) => `src/${f}`), ...walkFiles(path.join(step, "test")).map((f) => `test/${f}`)];
    const mentions = readers.filter((file) => fs.readFileSync(path.join(step, file), "utf8").includes(base));
    expect(mentions).toEqual([]);
  });
});

describe("「src/ 没改动」这句话有依据", () => {
  it("改了 src/ 里的文件、又加了一个：按清单核对时点名这两个文件", async () => {
    const exercise = EXERCISES.find((e) => e.id === 7)!;
    const dir = copyStep(exercise);
    write(dir, exercise, solutionSource(exercise));
    fs.appendFileSync(path.join(dir, "src", "main.ts"), "// 学习者改了宿主\n");
    fs.writeFileSync(path.join(dir, "src", "extra.ts"), "export {};\n");
    const report = await run(exercise, dir);
    expect(passed(report)).toBe(false);
    const src = report.checks.at(-1);
    expect(src?.ok).toBe(false);
    expect(src?.name).toContain("清单");
    expect(src?.saw).toContain("src/main.ts");
    expect(src?.saw).toContain("src/extra.ts（新文件）");
    expect(text(report)).not.toMatch(/练习 7 通过/);
  });

  const hasGit = (() => {
    try {
      execFileSync("git", ["--version"], { stdio: "ignore" });
      return true;
    } catch {
      return false;
    }
  })();
  if (!hasGit) console.warn("[跳过] 按 git 核对 src/ 的测试：这台机器上没有 git");

  it.skipIf(!hasGit)("在 git 仓库里：按 git status 核对，改了 step07 的 src/ 就点名", () => {
    const exercise = EXERCISES.find((e) => e.id === 7)!;
    const dir = copyStep(exercise);
    const git = (...args: string[]) => execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false", ...args], { cwd: dir, stdio: "ignore" });
    git("init", "-q");
    git("add", "-A");
    git("commit", "-qm", "init");
    const clean = checkSrcUnchanged(dir, exercise.step, {});
    expect(clean).toMatchObject({ ok: true, name: expect.stringContaining("git") });
    fs.appendFileSync(path.join(dir, "src", "agent-loop.ts"), "// 改了\n");
    const dirty = checkSrcUnchanged(dir, exercise.step, {});
    expect(dirty.ok).toBe(false);
    expect(dirty.saw).toContain("src/agent-loop.ts");
  });

  /**
   * 已提交的 src/ 的清单：有 git 时读 HEAD 里的版本（学习者在工作区里的改动不该让这个测试失败），
   * 没有 git（例如解压的压缩包）时就读工作区。
   */
  function committedManifest(exercise: Exercise): Record<string, string> {
    if (!hasGit) return manifestOf(realStep(exercise));
    const git = (...args: string[]) => execFileSync("git", args, { cwd: realStep(exercise), maxBuffer: 64 * 1024 * 1024 });
    try {
      const files = git("ls-tree", "-r", "--name-only", "--full-name", "HEAD", "--", "src").toString("utf8").split("\n").filter(Boolean);
      const prefix = git("rev-parse", "--show-prefix").toString("utf8").trim();
      return Object.fromEntries(files.map((file) => [file.slice(prefix.length), hashContent(git("show", `HEAD:${file}`))]));
    } catch {
      return manifestOf(realStep(exercise));
    }
  }

  it("随检查器提交的清单与各步骤提交的 src/ 一致", () => {
    const shipped = readShippedManifest();
    for (const exercise of EXERCISES) {
      expect(
        shipped[exercise.step],
        `scripts/lib/exercises/src-manifest.json 里 ${exercise.step} 的清单过期了：确认 src/ 的改动是有意的之后，运行 npm run exercise -- --update-manifest`,
      ).toEqual(committedManifest(exercise));
    }
  });
});

describe("npm run exercise 的列表与提示", () => {
  async function cli(argv: string[], dirs: Map<number, string>, stateFile: string) {
    let out = "";
    const code = await runCli(argv, {
      root,
      stateFile,
      write: (t) => (out += t),
      dirFor: (exercise) => dirs.get(exercise.id) ?? realStep(exercise),
      runOptions: { manifest },
    });
    return { code, out };
  }
  const freshCopies = () => {
    const base = fs.mkdtempSync(path.join(os.tmpdir(), "exercise-all-"));
    temps.push(base);
    return new Map(EXERCISES.map((exercise) => [exercise.id, copyStep(exercise, base)]));
  };
  const stateFile = () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "exercise-state-"));
    temps.push(dir);
    return path.join(dir, "state.json");
  };

  it("刚检出时全是 ✗；放进全部参考答案后全是 ✓", async () => {
    const dirs = freshCopies();
    const before = await cli([], dirs, stateFile());
    expect(EXERCISES.length).toBeGreaterThanOrEqual(8);
    expect(before.out).toContain(`0/${EXERCISES.length} 完成`);
    expect(before.out.match(/^✗ /gm)).toHaveLength(EXERCISES.length);
    expect(before.out).toContain("下一个：npm run exercise -- 2（第 8.1 章");

    for (const exercise of EXERCISES) write(dirs.get(exercise.id)!, exercise, solutionSource(exercise));
    const after = await cli([], dirs, stateFile());
    expect(after.out.match(/^✓ /gm), after.out).toHaveLength(EXERCISES.length);
    expect(after.out).toContain(`${EXERCISES.length}/${EXERCISES.length} 完成`);
    expect(after.out).toContain("全部完成");
  });

  it("--hint 一次多一级：点拨 → 位置 → 轮廓，停在第 3 级；各练习分开记", async () => {
    const state = stateFile();
    const dirs = new Map<number, string>();
    const exercise = EXERCISES.find((e) => e.id === 4)!;
    for (const [level, name] of [[1, "点拨"], [2, "位置"], [3, "轮廓"], [3, "轮廓"]] as const) {
      const { code, out } = await cli(["4", "--hint"], dirs, state);
      expect(code).toBe(0);
      expect(out).toContain(`提示 ${level}/3（${name}）`);
      expect(out).toContain(exercise.hints[level - 1]);
      for (const other of exercise.hints.filter((_, index) => index !== level - 1)) expect(out).not.toContain(other);
    }
    const { out } = await cli(["7", "--hint"], dirs, state);
    expect(out).toContain("提示 1/3（点拨）");
  });

  it("状态文件坏了：当作一级提示都还没看，照样给出第 1 级并把文件写好", async () => {
    const state = stateFile();
    fs.writeFileSync(state, "{坏掉的 JSON");
    const { code, out } = await cli(["6", "--hint"], new Map(), state);
    expect(code).toBe(0);
    expect(out).toContain("提示 1/3（点拨）");
    expect(JSON.parse(fs.readFileSync(state, "utf8"))).toEqual({ hintLevel: { "6": 1 } });
  });

  it("没有的练习、不认识的参数：退出码 2，并说明", async () => {
    const dirs = new Map<number, string>();
    expect(await cli(["1"], dirs, stateFile())).toMatchObject({ code: 2, out: expect.stringContaining("没有练习 1") });
    expect(await cli(["4", "--frobnicate"], dirs, stateFile())).toMatchObject({ code: 2, out: expect.stringContaining("不认识的参数") });
    expect(await cli(["--hint"], dirs, stateFile())).toMatchObject({ code: 2 });
  });
});
