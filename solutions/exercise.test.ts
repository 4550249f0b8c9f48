/**
 * 练习检查器与参考答案（第 8 章每一章的练习）。
 *
 * 每个用例都在步骤的一份临时副本里进行，不动仓库里的文件：
 *   - 没动过的步骤：检查不通过，输出里有第一级提示；
 *   - 放进参考答案：全部通过；
 *   - 放进一种看上去合理的错误写法：检查器点名它没过的那一项；
 *   - 改了 src/：检查器说出改了哪个文件（没有 git 时按清单，有 git 时按 git）；
 *   - 一份只背下检查器打印的输入的「查表」写法：固定用例全过，栽在现造的随机用例上。
 */

import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";

import { walkFiles } from "../scripts/lib/walk-files.ts";
import { runCli } from "../scripts/lib/exercises/cli.ts";
import { EXERCISES, GRADUATION } from "../scripts/lib/exercises/registry.ts";
import { commandFor, formatReport, nameLines, runExercise } from "../scripts/lib/exercises/run.ts";
import { isDeepStrictEqual } from "node:util";

import { checkSrcUnchanged, hashContent, lineHashes, manifestOf, readShippedLines, readShippedManifest, type LineManifest, type Manifest } from "../scripts/lib/exercises/src-unchanged.ts";
import { paint } from "../scripts/lib/color.ts";
import { same, show } from "../scripts/lib/exercises/helpers.ts";
import { freshSeed, GENERATED } from "../scripts/lib/exercises/random.ts";
import { copyStep as copyWatchStep, READY, startWatch } from "../scripts/bench/watch-latency.ts";
import { passed, type Exercise, type Report } from "../scripts/lib/exercises/types.ts";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "..");
const realStep = (exercise: Exercise) => path.join(root, "labs", "mini-agent-harness", exercise.step);
const plain = paint(false);

/** 临时副本不在 git 里：用现算的清单核对 src/（清单文件本身是否最新，由下面单独一个测试管）。 */
/**
 * 练习允许「只加不改」的文件（step07 的 src/rules.ts）提交的内容：学习者可能正照书上第 4 步在真实步骤里加着规则，
 * 临时副本和清单都用提交的版本，测试才不受它影响。没有 git 时用目录里现有的。
 */
function committedAdditions(exercise: Exercise): string | undefined {
  if (!exercise.additions) return undefined;
  try {
    return execFileSync("git", ["show", `HEAD:./${exercise.additions.file}`], { cwd: realStep(exercise), encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
  } catch {
    return fs.readFileSync(path.join(realStep(exercise), exercise.additions.file), "utf8");
  }
}
const pristine = new Map(EXERCISES.flatMap((exercise) => (exercise.additions ? [[exercise.id, committedAdditions(exercise)!] as const] : [])));

const manifest: Manifest = Object.fromEntries(
  EXERCISES.map((exercise) => {
    const files = manifestOf(realStep(exercise));
    const text = pristine.get(exercise.id);
    if (exercise.additions && text !== undefined) files[exercise.additions.file] = hashContent(Buffer.from(text, "utf8"));
    return [exercise.step, files];
  }),
);
const lines: LineManifest = Object.fromEntries(
  EXERCISES.flatMap((exercise) => (exercise.additions ? [[`${exercise.step}/${exercise.additions.file}`, lineHashes(pristine.get(exercise.id)!)]] : [])),
);
/** 这一轮测试的随机用例种子：每次 npm test 都不同；失败时报告里打印它（formatReport 的「种子」那一行）。 */
const seed = freshSeed();

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
    // filter 不是多余的：没有它时 Windows 上的 Node 22、24 走原生的快速复制，路径里有汉字等非 ASCII 字符就什么也不复制
    // （或者整个进程崩掉，nodejs/node#61878、#54476）；有 filter 就走 JS 的复制，没有这个问题
    if (fs.existsSync(from)) fs.cpSync(from, path.join(dir, name), { recursive: true, filter: () => true });
  }
  // 学习者可能正在真实的步骤里做这个练习（例如 extensions/reverse.ts 已经写了一半）：副本里不要它
  fs.rmSync(path.join(dir, ...exercise.file.split("/")), { force: true });
  const text = pristine.get(exercise.id);
  if (exercise.additions && text !== undefined) fs.writeFileSync(path.join(dir, ...exercise.additions.file.split("/")), text);
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

const run = (exercise: Exercise, dir: string, options: { seed?: number } = {}): Promise<Report> => runExercise(exercise, dir, { manifest, lines, seed, ...options });
const failing = (report: Report) => report.checks.filter((check) => !check.ok && check.skipped === undefined);
const text = (report: Report) => formatReport(report, root, plain);

const generatedNames = (report: Report) => report.checks.map((check) => check.name).filter((name) => name.startsWith(GENERATED));
/** 参考答案在本轮种子下得到的随机用例名字（参考答案那个测试记下；单独跑某个测试时现跑一次）。 */
const reference = new Map<number, string[]>();
async function referenceNames(exercise: Exercise): Promise<string[]> {
  if (!reference.has(exercise.id)) {
    const dir = copyStep(exercise);
    write(dir, exercise, solutionSource(exercise));
    reference.set(exercise.id, generatedNames(await run(exercise, dir)));
  }
  return reference.get(exercise.id)!;
}

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
  10: {
    why: "忘了 .env，只挡 .git/ 与 node_modules/（.env 照样能写）",
    source: (e) => mutate(e, '  if (parts.at(-1) === ".env") return "它是放密钥的 .env";\n', ""),
    failsAt: 'write ".env" 被阻止',
  },
};

/** step03 的剧本：练习 3 的查表写法要背下「说个长的」「出个错」两次回复的统计。 */
async function step03Table(): Promise<Record<string, unknown>> {
  const step = path.join(root, "labs", "mini-agent-harness", "step03-streaming");
  const { RULES } = (await import(pathToFileURL(path.join(step, "src", "rules.ts")).href)) as { RULES: Array<{ on: string; reply: unknown; error?: string }> };
  const { tokenize } = (await import(pathToFileURL(path.join(step, "src", "fake-model.ts")).href)) as { tokenize(text: string): string[] };
  const stats = (text: string, stopReason: string, errorMessage?: string) => ({ text, deltas: tokenize(text).length, chars: [...text].length, stopReason, ...(errorMessage ? { errorMessage } : {}) });
  const long = RULES.find((rule) => rule.on === "说个长的")!;
  const broken = RULES.find((rule) => rule.on === "出个错")!;
  return {
    [tokenize(long.reply as string)[0]!]: stats(long.reply as string, "stop"),
    [tokenize(broken.reply as string)[0]!]: stats(broken.reply as string, "error", broken.error),
    你好: { text: "你好😀!", deltas: 3, chars: 4, stopReason: "stop" },
    半句: { text: "半句", deltas: 1, chars: 2, stopReason: "error", errorMessage: "没有 done" },
  };
}

/**
 * 每个练习一份「查表」写法：只背下检查器打印出来的固定输入（或它们出场的次序）对应的答案，别的输入随便答。
 * 它们必须通过全部固定用例（证明表背对了），又必须栽在随机用例上（证明检查器要的是行为）。
 */
const CHEATS: Record<number, () => Promise<string> | string> = {
  // 按消息条数作答：1 条、3 条、5 条分别对应三个固定用例
  2: () => `import type { Rule } from "../src/rules.js";
const TABLE: Record<number, string> = { 1: "你还什么都没说呢。", 3: "你刚才说的是「今天天气不错」。", 5: "你刚才说的是「你好」。" };
export const RECALL_RULES: Rule[] = [{ on: "我刚才说了什么", reply: (context) => TABLE[context.messages.length] ?? "你还什么都没说呢。" }];
`,
  // 按第一个片段查表
  3: async () => `const TABLE: Record<string, unknown> = ${JSON.stringify(await step03Table())};
export async function measureStream(stream: AsyncIterable<{ type: string; delta?: string }>) {
  let first: string | undefined;
  for await (const event of stream) if (event.type === "text_delta") first ??= event.delta;
  return TABLE[first ?? ""] ?? { text: "", deltas: 0, chars: 0, stopReason: "stop" };
}
`,
  // 按参数的 JSON 查表；表里没有的一律说「不行」
  4: () => `const TABLE: Record<string, string> = { '{"numbers":[3,17,5]}': "17", '{"numbers":[-3,-1.5,-7]}': "-1.5", '{"numbers":[42]}': "42", '{"numbers":[4,42,8]}': "42" };
export const maxTool = { name: "max", description: "查表", parameters: { type: "object" },
  execute(args: unknown) { const hit = TABLE[JSON.stringify(args)]; return hit === undefined ? { content: "不行", isError: true } : { content: hit }; } };
`,
  // 按路径查表
  5: () => `const TABLE: Record<string, string> = { ".": "a.md\\nb.txt\\ndocs/\\nempty/\\nlinks/", docs: "guide.md", empty: "（空目录）", "docs/../docs": "guide.md" };
export const listDirTool = { name: "list_dir", description: "查表",
  parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"], additionalProperties: false },
  execute(args: { path: string }) { const hit = TABLE[args.path]; return hit === undefined ? { content: "不行", isError: true } : { content: hit }; } };
`,
  // 按文件行数查表
  6: () => `import fs from "node:fs";
const A = ["1. 我叫小明", "2. 帮我算 17*38", "3. 我叫什么"];
const TABLE: Record<number, string[]> = { 8: A, 9: A, 10: ["1. 我叫小明", "2. 我叫小红"] };
export function history(file: string): string[] { return TABLE[fs.readFileSync(file, "utf8").split("\\n").filter(Boolean).length] ?? []; }
`,
  // 按输入文本查表；表里没有的原样返回
  7: () => `import type { ExtensionAPI } from "../src/extensions.js";
const TABLE: Record<string, string> = { abcdef: "fedcba", "Harness 你好": "好你 ssenraH", "你好😀世界": "界世😀好你" };
export default function (pi: ExtensionAPI): void {
  pi.registerTool({ name: "reverse", description: "查表", parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
    execute(args) { const text = args.text as string; return { content: TABLE[text] ?? text }; } });
}
`,
  // 按用例出场的次序背下每一次的结局；请求照发（第一个用例要看请求体），回应读完就扔
  8: () => `import type { AssistantMessage, Context, StreamFn } from "../src/types.js";
const TABLE: Array<{ deltas: string[]; stopReason: AssistantMessage["stopReason"]; errorMessage?: string; usage?: AssistantMessage["usage"] }> = [
  { deltas: ["好"], stopReason: "stop" },
  { deltas: ["你好，", "小明！"], stopReason: "stop", usage: { input: 26, output: 9, cacheRead: 0, cacheWrite: 0 } },
  { deltas: ["这是一段很长的回复。"], stopReason: "stop" },
  { deltas: ["写到一半"], stopReason: "length" },
  { deltas: [], stopReason: "error", errorMessage: "HTTP 404：not found" },
  { deltas: ["你好"], stopReason: "error", errorMessage: "GPU 内存不足" },
  { deltas: ["说到一半"], stopReason: "error", errorMessage: "没有 done" },
  { deltas: ["说到"], stopReason: "error", errorMessage: "断了" },
  { deltas: [], stopReason: "error", errorMessage: "连不上" },
  { deltas: ["这是一段"], stopReason: "aborted" },
];
let calls = 0;
const text = (context: Context) => [
  ...(context.systemPrompt ? [{ role: "system", content: context.systemPrompt }] : []),
  ...context.messages.map((m) => ({ role: m.role, content: typeof m.content === "string" ? m.content : m.content.map((p) => (p.type === "text" ? p.text : "")).join("") })),
];
export function createOllamaStream(config: { baseUrl: string; model: string }): StreamFn {
  return async function* (context, options) {
    const answer = TABLE[calls++] ?? { deltas: [], stopReason: "stop" };
    const joined = answer.deltas.join("");
    const message: AssistantMessage = { role: "assistant", content: joined ? [{ type: "text", text: joined }] : [], stopReason: answer.stopReason,
      ...(answer.errorMessage ? { errorMessage: answer.errorMessage } : {}), ...(answer.usage ? { usage: answer.usage } : {}) };
    try {
      const response = await fetch(config.baseUrl + "/api/chat", { method: "POST", body: JSON.stringify({ model: config.model, messages: text(context), stream: true }), signal: options?.signal });
      for (const delta of answer.deltas) yield { type: "text_delta", delta };
      await response.text();
    } catch {
      if (options?.signal?.aborted) {
        yield { type: "done", message: { ...message, stopReason: "aborted" } };
        return;
      }
    }
    yield { type: "done", message };
  };
}
`,
  // 按用例出场的次序背下「内层该调用几次」，只转发最后一次的事件
  9: () => `import type { StreamEvent, StreamFn } from "../src/types.js";
const TABLE = [{ calls: 1 }, { calls: 3 }, { calls: 1 }, { calls: 1 }, { calls: 3 }, { calls: 1 }, { calls: 1 }, { calls: 2 }, { calls: 1, thenAborted: true }];
let cases = 0;
export function retryBeforeFirstToken(streamFn: StreamFn): StreamFn {
  const answer = TABLE[cases++] ?? { calls: 1 };
  return async function* (context, options) {
    let events: StreamEvent[] = [];
    for (let i = 0; i < answer.calls; i++) {
      events = [];
      for await (const event of streamFn(context, options)) events.push(event);
    }
    if (answer.thenAborted) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      yield { type: "done", message: { role: "assistant", content: [], stopReason: "aborted" } };
      return;
    }
    yield* events;
  };
}
`,
  // 按模型给的路径字符串查表：只挡检查器打印过的那几个路径
  10: () => `import type { ExtensionAPI } from "../src/extensions.js";
const TABLE = [".env", "./.env", "sub/../.env", ".git/config", "src/../.git/config", "node_modules/x/index.js"];
export default function (pi: ExtensionAPI): void {
  pi.on("tool_call", (event) => {
    if (event.toolName !== "write" && event.toolName !== "edit") return undefined;
    return TABLE.includes(String(event.input.path)) ? { block: true, reason: "受保护" } : undefined;
  });
}
`,
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
    expect(generatedNames(report).length, "至少两条随机用例").toBeGreaterThanOrEqual(2);
    reference.set(exercise.id, generatedNames(report));
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
    // 换一个种子：换一批随机用例
    const other = (seed + 1) % 2 ** 32;
    const report = await run(exercise, dir, { seed: other });
    expect(passed(report)).toBe(false);
    expect(generatedNames(report)).not.toEqual(await referenceNames(exercise));
    expect(text(report)).toContain(`--seed ${other}`);
    const names = failing(report).map((check) => check.name);
    expect(names.some((name) => name.includes(wrong.failsAt)), text(report)).toBe(true);
    const output = text(report);
    expect(output).toContain("看到：");
    // 长值只打印第一处不同的前后：错误写法的报告里没有一行超过 200 个字符（练习 7 的长文本曾经打出 1500 字符的一行）
    expect(output.split("\n").filter((line) => line.length > 200), output).toEqual([]);
    expect(output).toContain(`第一项没通过的是「${nameLines(failing(report)[0]?.name ?? "")[0]}」`);
    expect(output).toContain(`npm run exercise -- ${exercise.id} --hint`);
    expect(output).not.toContain(exercise.hints[2]);
  });

  it("一份只背下固定输入的查表写法：固定用例全过，栽在现造的随机用例上，报告里有种子", async () => {
    const cheat = CHEATS[exercise.id];
    expect(cheat, "每个练习都要有一份查表写法").toBeDefined();
    if (!cheat) return;
    const dir = copyStep(exercise);
    write(dir, exercise, await cheat());
    const report = await run(exercise, dir);
    const output = text(report);
    expect(passed(report), output).toBe(false);
    // 同一个种子造出同一批随机用例：和参考答案那一次（同一个种子）一模一样
    expect(generatedNames(report)).toEqual(await referenceNames(exercise));
    const names = failing(report).map((check) => check.name);
    // 没过的全是随机用例：表背对了，固定用例一项不差
    expect(names.length, output).toBeGreaterThan(0);
    expect(names.filter((name) => !name.startsWith(GENERATED)), output).toEqual([]);
    expect(output).toContain(`第一项没通过的是「${GENERATED}`);
    expect(output).toContain(`npm run exercise -- ${exercise.id} --seed ${seed}`);
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

describe("练习 10：Pi 自带的 protected-paths.ts（子串比较）也过不了", () => {
  // @earendil-works/pi-coding-agent@1.6.0 examples/extensions/protected-paths.ts 的判断，原样照搬（只换了 import type 的路径）
  const PI_EXAMPLE = `import type { ExtensionAPI } from "../src/extensions.js";
export default function (pi: ExtensionAPI) {
  const protectedPaths = [".env", ".git/", "node_modules/"];
  pi.on("tool_call", async (event) => {
    if (event.toolName !== "write" && event.toolName !== "edit") return undefined;
    const path = event.input.path as string;
    if (protectedPaths.some((p) => path.includes(p))) return { block: true, reason: \`Path "\${path}" is protected\` };
    return undefined;
  });
}
`;

  it("受保护的路径都挡住了，却把 .envrc 和 node_modules/../src/app.ts 也挡了：报告点名这两项，说闸门阻止了", async () => {
    const exercise = EXERCISES.find((e) => e.id === 10)!;
    const dir = copyStep(exercise);
    write(dir, exercise, PI_EXAMPLE);
    const report = await run(exercise, dir);
    expect(passed(report)).toBe(false);
    const names = failing(report).map((check) => check.name);
    expect(names, text(report)).toEqual([
      'write ".envrc" 放行，工具照常执行（名字以 .env 开头，但不是 .env）',
      'write "node_modules/../src/app.ts" 放行，工具照常执行（写着 node_modules，展开后是 src/app.ts）',
      expect.stringMatching(/^随机用例 5\/5（名字以 \.env 开头，但不是 \.env）/),
    ]);
    expect(failing(report)[0]?.saw).toBe('闸门阻止了："Path \\".envrc\\" is protected"');
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

  /** 书上第 4 步的两条规则：照着 src/rules.ts:22-27 那两条 upper 规则写，加在兜底规则之前。 */
  const BOOK_RULES = `  {
    on: "倒过来",
    reply: "交给 reverse 工具。",
    toolCall: { name: "reverse", arguments: (input) => ({ text: between(input, "把", "倒过来") }) },
  },
  { on: "toolResult:reverse", reply: okOrError("倒好了。") },
`;
  const FALLBACK = '  // ── 兜底：剧本里没有的话 ──\n';
  /** 练习 7 的一份副本：参考答案 + 按 edit 改过的 src/rules.ts。 */
  function step07With(edit: (rules: string) => string): { exercise: Exercise; dir: string } {
    const exercise = EXERCISES.find((e) => e.id === 7)!;
    const dir = copyStep(exercise);
    write(dir, exercise, solutionSource(exercise));
    const file = path.join(dir, "src", "rules.ts");
    const before = fs.readFileSync(file, "utf8");
    expect(before).toContain(FALLBACK);
    fs.writeFileSync(file, edit(before));
    return { exercise, dir };
  }

  it("书上的第 4 步：扩展加上 src/rules.ts 里新增的两条规则，练习 7 通过，对话用的是学习者的规则", async () => {
    const { exercise, dir } = step07With((rules) => rules.replace(FALLBACK, BOOK_RULES + FALLBACK));
    const report = await run(exercise, dir);
    expect(failing(report), text(report)).toEqual([]);
    expect(passed(report)).toBe(true);
    expect(report.checks.find((check) => check.name.includes("一次完整的对话"))?.name).toContain("用你在 src/rules.ts 里加的规则");
    expect(report.checks.at(-1)?.name).toContain("src/rules.ts 只在 RULES 里加了规则");
  });

  it("规则放在兜底规则之后永远轮不到：对话那一项说出原因", async () => {
    const { exercise, dir } = step07With((rules) => rules.replace(/\n\];\n/, `\n${BOOK_RULES}];\n`));
    const report = await run(exercise, dir);
    const conversation = failing(report).find((check) => check.name.includes("一次完整的对话"));
    expect(conversation?.saw, text(report)).toContain("兜底规则");
    expect(report.checks.at(-1)?.ok, "加在 RULES 里、哪怕在兜底之后，也还是「只加」").toBe(true);
  });

  it.each([
    ["改了一条原有的规则", (rules: string) => rules.replace("转好了。", "转好啦。"), "原来的第"],
    ["删掉一条原有的规则", (rules: string) => rules.replace('  { on: "toolResult:upper", reply: okOrError("转好了。") },\n', ""), "原来的第"],
    ["调换两条规则的次序", (rules: string) => rules.replace(/( {2}\{ on: "我叫什么".*\n)( {2}\{ on: "我叫".*\n)/, "$2$1"), "原来的第"],
    ["在 RULES 之外加了一行", (rules: string) => rules.replace(FALLBACK, BOOK_RULES + FALLBACK) + "export const EXTRA = 1;\n", "RULES 数组之外"],
  ])("src/rules.ts %s：仍然点名 src/rules.ts 并说明原因", async (_, edit, reason) => {
    const { exercise, dir } = step07With(edit);
    const src = (await run(exercise, dir)).checks.at(-1);
    expect(src?.ok).toBe(false);
    expect(src?.saw).toContain("src/rules.ts");
    expect(src?.saw).toContain(reason);
  });

  it("加了规则、又改了 src/agent-loop.ts：点名 src/agent-loop.ts，规则不算改动", async () => {
    const { exercise, dir } = step07With((rules) => rules.replace(FALLBACK, BOOK_RULES + FALLBACK));
    fs.appendFileSync(path.join(dir, "src", "agent-loop.ts"), "// 学习者改了循环\n");
    const report = await run(exercise, dir);
    const src = report.checks.at(-1);
    expect(src?.ok).toBe(false);
    expect(src?.saw).toContain("src/agent-loop.ts");
    expect(src?.saw).not.toContain("src/rules.ts");
    expect(src?.name).toContain("src/rules.ts 只在 RULES 里加了规则");
  });

  it("--watch：保存就重查；预先导入 src/ 之后 src/rules.ts 又变了，换新进程按新的规则查", async () => {
    const exercise = EXERCISES.find((e) => e.id === 7)!;
    const [base, copy] = copyWatchStep(realStep(exercise));
    temps.push(base);
    write(copy, exercise, solutionSource(exercise));
    fs.writeFileSync(path.join(copy, "src", "rules.ts"), pristine.get(exercise.id)!); // 学习者在真实步骤里加的规则不带进来
    const watch = startWatch(root, 7, copy);
    try {
      await watch.waitFor("用检查器自带的两条");
      await watch.waitFor("练习 7 通过");
      await watch.waitFor(READY); // 下一个检查进程已经导入了旧的 src/rules.ts
      const rules = path.join(copy, "src", "rules.ts");
      fs.writeFileSync(rules, fs.readFileSync(rules, "utf8").replace(FALLBACK, BOOK_RULES + FALLBACK));
      await watch.waitFor("用你在 src/rules.ts 里加的规则");
      await watch.waitFor("练习 7 通过");
    } finally {
      await watch.stop();
    }
  }, 300_000); // 要依次启动三个检查进程：上限只防真卡住，给得比别的测试宽（机器很忙时一个 tsx 进程要启动几十秒）

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
    const additions = exercise.additions!;
    const rules = path.join(dir, "src", "rules.ts");
    fs.writeFileSync(rules, fs.readFileSync(rules, "utf8").replace("  // ── 兜底：", `  { on: "倒过来", reply: "好。", toolCall: { name: "reverse", arguments: (input) => ({ text: input }) } },\n  // ── 兜底：`));
    expect(checkSrcUnchanged(dir, exercise.step, { additions })).toMatchObject({ ok: true, name: expect.stringContaining("src/rules.ts 只在 RULES 里加了规则") });
    fs.appendFileSync(path.join(dir, "src", "agent-loop.ts"), "// 改了\n");
    const dirty = checkSrcUnchanged(dir, exercise.step, { additions });
    expect(dirty.ok).toBe(false);
    expect(dirty.saw).toContain("src/agent-loop.ts");
    expect(dirty.saw).not.toContain("src/rules.ts");
    fs.writeFileSync(rules, fs.readFileSync(rules, "utf8").replace("转好了。", "转好啦。"));
    expect(checkSrcUnchanged(dir, exercise.step, { additions }).saw).toContain("src/rules.ts：原来的第");
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
      // 一条 git cat-file --batch 取出全部文件（每个文件一条 git show 要起几十个进程）：
      // 输出是「<sha> blob <字节数>\n<内容>\n」一个接一个
      const out = execFileSync("git", ["cat-file", "--batch"], { cwd: realStep(exercise), input: files.map((file) => `HEAD:${file}`).join("\n") + "\n", maxBuffer: 64 * 1024 * 1024 });
      const contents: Buffer[] = [];
      for (let at = 0; at < out.length; ) {
        const newline = out.indexOf(10, at);
        const size = Number(out.subarray(at, newline).toString("latin1").split(" ")[2]);
        contents.push(out.subarray(newline + 1, newline + 1 + size));
        at = newline + 1 + size + 1;
      }
      expect(contents).toHaveLength(files.length);
      return Object.fromEntries(files.map((file, index) => [file.slice(prefix.length), hashContent(contents[index]!)]));
    } catch {
      return manifestOf(realStep(exercise));
    }
  }

  it("随检查器提交的逐行哈希（src-lines.json）与提交的 src/rules.ts 一致", () => {
    const shipped = readShippedLines();
    for (const exercise of EXERCISES.filter((e) => e.additions)) {
      const file = exercise.additions!.file;
      const committed = hasGit
        ? execFileSync("git", ["show", `HEAD:./${file}`], { cwd: realStep(exercise), encoding: "utf8" })
        : fs.readFileSync(path.join(realStep(exercise), file), "utf8");
      expect(shipped[`${exercise.step}/${file}`], "src-lines.json 过期了：运行 npm run exercise -- --update-manifest").toEqual(lineHashes(committed));
    }
  });

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
      runOptions: { manifest, lines, seed },
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

  it("毕业练习列在最后、另算：完成数那一行说出第 8 章的几个，也说出毕业练习是否通过", async () => {
    const out = async (graduationPasses: boolean) => {
      let text = "";
      await runCli([], {
        root,
        stateFile: stateFile(),
        write: (t) => (text += t),
        graduation: true,
        // 只看列表怎么数：第 8 章的练习都算没开始，毕业练习按参数通过或不通过
        check: async (exercise) => ({ checks: [{ name: "x", ok: exercise.slug === GRADUATION.slug && graduationPasses }], notStarted: exercise.slug !== GRADUATION.slug }) as never,
      });
      return text;
    };
    const failing = await out(false);
    expect(failing.match(/^✗ /gm)).toHaveLength(EXERCISES.length + 1);
    expect(failing).toContain(`0/${EXERCISES.length} 完成（第 8 章的 ${EXERCISES.length} 个练习；毕业练习 pi 另算：还没通过）`);
    expect(await out(true)).toContain(`0/${EXERCISES.length} 完成（第 8 章的 ${EXERCISES.length} 个练习；毕业练习 pi 另算：通过）`);
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

  it("在步骤目录里运行（脚本已带上编号）：建议的命令不再写编号，照抄不会变成 exercise.ts 7 7 --hint", async () => {
    let out = "";
    const exercise = EXERCISES.find((e) => e.id === 7)!;
    const env = { root, stateFile: stateFile(), write: (t: string) => (out += t), fromStep: 7, dirFor: () => copyStep(exercise), runOptions: { manifest, lines, seed } };
    // 步骤目录里的 npm run exercise -- --hint 就是 exercise.ts 7 --hint
    expect(await runCli(["7", "--hint"], env)).toBe(0);
    expect(out).toContain("还卡着就再运行一次 npm run exercise -- --hint，看第 2 级");
    out = "";
    await runCli(["7"], env);
    expect(out).toContain("写好后运行 npm run exercise；需要更多提示：npm run exercise -- --hint");
    expect(out).not.toMatch(/npm run exercise -- 7/);
    // 在根目录运行时照旧带编号；毕业练习（pi）从不省略名字
    expect(commandFor(exercise, " --hint")).toBe("npm run exercise -- 7 --hint");
    expect(commandFor(exercise, " --seed 5", 7)).toBe("npm run exercise -- --seed 5");
    expect(commandFor(GRADUATION, " --hint", 7)).toBe("npm run exercise -- pi --hint");
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

describe("比较是严格的，每个 ✓ 都来自一次可能失败的比较", () => {
  it("[NaN] 不等于 [null]，{ y: undefined } 不等于 {}，属性次序不要紧；看到的值照实显示", () => {
    expect(same("x", [NaN], [null]).ok).toBe(false);
    expect(same("x", [NaN], [null]).saw).toBe("[ NaN ]");
    expect(same("x", { y: undefined }, {}).ok).toBe(false);
    expect(same("x", { y: undefined }, {}).saw).toContain("undefined");
    expect(same("x", { a: 1, b: [2] }, { b: [2], a: 1 }).ok).toBe(true);
    expect(same("x", "1", 1).ok).toBe(false);
    expect(show("界世\ude00\ud83d好你")).toBe('"界世\\ude00\\ud83d好你"');
    expect(isDeepStrictEqual([NaN], [NaN])).toBe(true);
  });

  it("检查器一条随机用例都没造出来，就算不通过（不打印一排什么也没查的 ✓）", async () => {
    const exercise = EXERCISES.find((e) => e.id === 7)!;
    const dir = copyStep(exercise);
    write(dir, exercise, solutionSource(exercise));
    const lazy: Exercise = { ...exercise, check: async () => [{ name: "什么也没查", ok: true }] };
    const report = await run(lazy, dir);
    expect(passed(report)).toBe(false);
    expect(failing(report).map((check) => check.name)).toEqual([`检查器现造了${GENERATED}`]);
  });
});

describe("报告里的长名字", () => {
  it("随机用例把整串故障写进名字：在「：」处断开、在「 → 」处折行，每行不超过 160 个字符；短名字原样一行", () => {
    const steps = Array.from({ length: 9 }, (_, i) => `失败「HTTP 503：Service Unavailable ${i}」`).join(" → ");
    const name = `随机用例 2/2（9 次瞬时故障后遇到不可重试的错误，maxRetries=1）：${steps}`;
    const lines = nameLines(name);
    expect(lines[0]).toBe("随机用例 2/2（9 次瞬时故障后遇到不可重试的错误，maxRetries=1）");
    expect(lines.length).toBeGreaterThan(2);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(160);
    expect(lines.slice(1).every((line) => line.startsWith("   "))).toBe(true);
    expect(lines.slice(1).join("").replace(/^ {3}/, "").replace(/ {3}(?= → )/g, "")).toBe(steps);
    expect(nameLines("一次就成功：原样转发，不多调用")).toEqual(["一次就成功：原样转发，不多调用"]);
  });
});
