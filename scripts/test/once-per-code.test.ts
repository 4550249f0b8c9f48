import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { formatOnce } from "../vitest/short-reporter.ts";
import ShortReporter from "../vitest/short-reporter.ts";
import { locationIn, OncePerCode, planOncePerCode, type OncePlan } from "../vitest/once-per-code.ts";
import { Collector, makeFixtureRoot, removeFixtureRoot, stepPath, writeFiles, writeStep } from "./helpers/fixture.ts";

// 夹具：一个假仓库，几个步骤各有一份测试。计划只看文件的字节与导入图，不运行这些测试。
const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) removeFixtureRoot(root);
});

const TSCONFIG = `{ "compilerOptions": { "module": "nodenext", "strict": true }, "include": ["src/**/*.ts", "test/**/*.ts"] }\n`;
const SRC = { "src/add.ts": `export function add(a: number, b: number): number {\n  return a + b;\n}\n` };
const PURE_TEST = `import { add } from "../src/add.ts";\nimport path from "node:path";\nexport const checked = add(1, 2) === 3 && path.sep.length === 1;\n`;

/** 造 steps 个一模一样的步骤（files 再各加上），返回仓库根与每一步的测试文件 */
function fixture(files: Record<string, string>, steps = ["step01-a", "step02-b"]): { root: string; tests: string[] } {
  const root = makeFixtureRoot("once");
  roots.push(root);
  for (const step of steps) writeStep(root, step, { "tsconfig.json": TSCONFIG, ...SRC, ...files });
  const tests = steps.map((step) => path.join(stepPath(root, step), "test", "a.test.ts"));
  return { root, tests };
}

const plan = (root: string, tests: string[]): Promise<OncePlan> => planOncePerCode(tests, root, path.join(root, ".cache"));
const rel = (root: string, files: Iterable<string>) => [...files].map((f) => path.relative(root, f).split(path.sep).join("/"));

describe("同一份代码只跑一次：判断", () => {
  it("测试文件与它导入的文件都逐字节相同：只跑最早那一步的一份", async () => {
    const { root, tests } = fixture({ "test/a.test.ts": PURE_TEST }, ["step01-a", "step02-b", "step03-c"]);
    const result = await plan(root, [...tests].reverse()); // 传入的顺序不影响留下哪一份
    expect(result.error).toBeUndefined();
    expect(rel(root, result.run)).toEqual(["labs/mini-agent-harness/step01-a/test/a.test.ts"]);
    expect([...result.copies].map(([copy, kept]) => rel(root, [copy, kept]))).toEqual([
      ["labs/mini-agent-harness/step02-b/test/a.test.ts", "labs/mini-agent-harness/step01-a/test/a.test.ts"],
      ["labs/mini-agent-harness/step03-c/test/a.test.ts", "labs/mini-agent-harness/step01-a/test/a.test.ts"],
    ]);
  });

  it("它导入的 src 文件改了一个字节：两份都跑", async () => {
    const { root, tests } = fixture({ "test/a.test.ts": PURE_TEST });
    fs.appendFileSync(path.join(stepPath(root, "step02-b"), "src", "add.ts"), " ");
    const result = await plan(root, tests);
    expect(result.copies.size).toBe(0);
    expect(result.run).toEqual(tests);
  });

  it("导入链更深处的文件不同也算：测试 → helpers → src", async () => {
    const { root, tests } = fixture({
      "test/a.test.ts": `import { three } from "./helpers/three.ts";\nexport const x = three;\n`,
      "test/helpers/three.ts": `import { add } from "../../src/add.js";\nexport const three = add(1, 2);\n`,
    });
    expect((await plan(root, tests)).copies.size).toBe(1); // 先确认相同时合并（.js 的写法解析到 .ts）
    fs.writeFileSync(path.join(stepPath(root, "step02-b"), "src", "add.ts"), SRC["src/add.ts"].replace("a + b", "b + a"));
    expect((await plan(root, tests)).copies.size).toBe(0);
  });

  it("只在运行时才读到的 src 文件（经 import.meta.url 找到）：不比内容，两份都跑，改了一个字节也一样", async () => {
    // helper 按自己的位置找到步骤目录再读 src：这样的测试的输入是整个步骤目录，连同目录名（见 once-per-code.ts 文件头）
    const helper = `import fs from "node:fs";\nimport path from "node:path";\nimport { fileURLToPath } from "node:url";\nexport const stepRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");\nexport const source = () => fs.readFileSync(path.join(stepRoot, "src", "add.ts"), "utf8");\n`;
    const test = `import { source } from "./helpers/step.ts";\nexport const ok = source().includes("a + b");\n`;
    const { root, tests } = fixture({ "test/a.test.ts": test, "test/helpers/step.ts": helper });
    const same = await plan(root, tests);
    expect(same.copies.size).toBe(0);
    expect(rel(root, same.alone.keys())).toEqual(rel(root, tests));
    expect(same.alone.get(tests[1]!)).toBe("labs/mini-agent-harness/step02-b/test/helpers/step.ts：import.meta");
    fs.appendFileSync(path.join(stepPath(root, "step02-b"), "src", "add.ts"), "// 运行时才读到\n");
    expect((await plan(root, tests)).run).toEqual(tests);
    // 对照：同样的两份测试去掉 import.meta 那一行（路径写死在仓库根下），就合并了——是那一行让它们各跑各的
    const { root: plain, tests: plainTests } = fixture({ "test/a.test.ts": test, "test/helpers/step.ts": helper.replace("path.dirname(fileURLToPath(import.meta.url))", "process.cwd()") });
    expect((await plan(plain, plainTests)).copies.size).toBe(1);
  });

  it.each([
    ["import.meta.dirname", `export const here = import.meta.dirname;\n`, "import.meta"],
    ["参数不是字面量的 import()", `const name = "./x.ts";\nexport const load = () => import(name);\n`, "参数不是字面量的 import()"],
    ["expect.getState().testPath", `import { expect } from "vitest";\nexport const file = () => expect.getState().testPath;\n`, "testPath"],
    ["vi.importActual", `import { vi } from "vitest";\nexport const real = () => vi.importActual("../src/add.ts");\n`, "importActual"],
    ["快照文件", `import { expect } from "vitest";\nexport const snap = (x: unknown) => expect(x).toMatchSnapshot();\n`, "toMatchSnapshot"],
  ])("知道自己在哪儿的写法：%s", async (_name, code, reason) => {
    // 用到 vitest 的测试要能解析 "vitest"：夹具里放一个假的包（两步共用仓库根的 node_modules）
    const { root, tests } = fixture({ "test/a.test.ts": `import "./helpers/where.ts";\n`, "test/helpers/where.ts": code });
    writeFiles(root, { "node_modules/vitest/package.json": `{ "name": "vitest", "type": "module", "main": "index.js" }\n`, "node_modules/vitest/index.js": "export const expect = () => {}; export const vi = {};\n" });
    const result = await plan(root, tests);
    expect(result.copies.size).toBe(0);
    expect(result.alone.get(tests[0]!)).toContain(reason);
  });

  it("CommonJS 的文件（__dirname、require 相对自己）：各跑各的", async () => {
    const { root, tests } = fixture({ "test/a.test.ts": `import where from "./helpers/where.cjs";\nexport const w = where;\n`, "test/helpers/where.cjs": "module.exports = __dirname;\n" });
    const result = await plan(root, tests);
    expect(result.copies.size).toBe(0);
    expect(result.alone.get(tests[0]!)).toMatch(/where\.cjs：.*CommonJS/);
  });

  it("node_modules 里的包：两步解析到同一份安装才算相同", async () => {
    const { root, tests } = fixture({ "test/a.test.ts": `import { v } from "pkg";\nexport const x = v;\n` });
    const pkg = { "package.json": `{ "name": "pkg", "type": "module", "main": "index.js" }\n`, "index.js": "export const v = 1;\n" };
    writeFiles(path.join(root, "node_modules", "pkg"), pkg);
    expect((await plan(root, tests)).copies.size).toBe(1);
    // step02 自己装了一份（字节一样，却是另一份安装）：两份都跑
    writeFiles(path.join(stepPath(root, "step02-b"), "node_modules", "pkg"), pkg);
    expect((await plan(root, tests)).copies.size).toBe(0);
  });

  it("工作区的包（node_modules 里是链接，指回仓库）照常展开：它的文件也进比较", async () => {
    const { root, tests } = fixture({ "test/a.test.ts": `import { v } from "shared";\nexport const x = v;\n` });
    writeFiles(path.join(root, "labs", "shared"), { "package.json": `{ "name": "shared", "type": "module", "main": "index.ts" }\n`, "index.ts": "export const v: number = 1;\n" });
    fs.mkdirSync(path.join(root, "node_modules"), { recursive: true });
    fs.symlinkSync(path.join(root, "labs", "shared"), path.join(root, "node_modules", "shared"), "junction");
    expect((await plan(root, tests)).copies.size).toBe(1);
  });

  it("最近的 tsconfig.json 的 compilerOptions 不同：两份都跑；只是 include 不同：照样合并", async () => {
    const { root, tests } = fixture({ "test/a.test.ts": PURE_TEST });
    const step2 = path.join(stepPath(root, "step02-b"), "tsconfig.json");
    fs.writeFileSync(step2, TSCONFIG.replace(`"test/**/*.ts"`, `"test/**/*.ts", "bench/**/*.ts"`));
    expect((await plan(root, tests)).copies.size).toBe(1);
    fs.writeFileSync(step2, TSCONFIG.replace(`"strict": true`, `"strict": true, "useDefineForClassFields": false`));
    expect((await plan(root, tests)).copies.size).toBe(0);
  });

  it("文件名不同也不合并：测试可以按自己的名字找文件", async () => {
    const { root, tests } = fixture({ "test/a.test.ts": PURE_TEST, "test/b.test.ts": PURE_TEST }, ["step01-a"]);
    const both = [tests[0]!, path.join(path.dirname(tests[0]!), "b.test.ts")];
    expect((await plan(root, both)).copies.size).toBe(0);
  });

  it("只选中了后一步的那份（命令行过滤）：照跑", async () => {
    const { root, tests } = fixture({ "test/a.test.ts": PURE_TEST });
    expect((await plan(root, [tests[1]!])).run).toEqual([tests[1]]);
  });

  it("esbuild 解析不了（语法错误）：全部照跑，并说出原因", async () => {
    const { root, tests } = fixture({ "test/a.test.ts": PURE_TEST });
    fs.writeFileSync(tests[1]!, "export const = ;\n");
    const result = await plan(root, tests);
    expect(result.run).toEqual(tests);
    expect(result.error).toMatch(/\S/);
  });

  it("判断按内容缓存在给定的目录里；第二次用缓存，结果一样", async () => {
    const { root, tests } = fixture({ "test/a.test.ts": PURE_TEST });
    const first = await plan(root, tests);
    const cached = fs.readdirSync(path.join(root, ".cache"));
    expect(cached).toHaveLength(1);
    expect(Object.keys(JSON.parse(fs.readFileSync(path.join(root, ".cache", cached[0]!), "utf8")) as object).length).toBeGreaterThan(0);
    expect((await plan(root, tests)).copies).toEqual(first.copies);
  });
});

describe("认出「知道自己在哪儿」", () => {
  it("es-module-lexer 认出 import.meta 与参数不是字面量的 import()；字面量的 import() 不算", () => {
    expect(locationIn(`const u = import.meta.url;`)).toEqual(["import.meta"]);
    expect(locationIn(`await import(name);`)).toEqual(["参数不是字面量的 import()"]);
    expect(locationIn(`await import("./x.js"); import y from "./y.js";`)).toEqual([]);
    expect(locationIn(`module.exports = 1;`, "cjs")).toEqual(["CommonJS（__dirname、require）"]);
    expect(locationIn(`const file = task.file.filepath;`)).toEqual(["filepath"]);
  });
});

describe("根目录 vitest 的排序器与报告器", () => {
  it("排序器去掉副本，报告器开头与合计上面各说一次", async () => {
    const { root, tests } = fixture({ "test/a.test.ts": PURE_TEST }, ["step01-a", "step02-b", "step03-c"]);
    const once = new OncePerCode(path.join(root, ".cache"));
    // vitest 的默认排序要的那几样：项目的配置、缓存里的统计
    const project = { name: "", config: { sequence: { groupOrder: 0 }, isolate: false } };
    const ctx = { config: { root }, cache: { getFileTestResults: () => undefined, getFileStats: () => undefined } };
    const specs = tests.map((moduleId) => ({ moduleId, project }));
    const out = new Collector();
    const reporter = new ShortReporter({ out: out as unknown as NodeJS.WritableStream, color: false, oncePerCode: once });
    reporter.onInit({ config: { root } } as never);
    await reporter.onTestRunStart(specs);
    const Sequencer = once.sequencer();
    const sorted = await new Sequencer(ctx as never).sort(specs as never);
    expect(sorted.map((s) => s.moduleId)).toEqual([tests[0]]);
    reporter.onTestRunEnd([], []);
    expect(out.text).toContain("运行 1 个测试文件（另有 2 个与前一步逐字节相同，不再跑）");
    expect(out.text).toMatch(/2 个文件与前一步逐字节相同，只跑一次（step02-b 1、step03-c 1）；判断用时 \d+\.\ds/);
  });

  it("没能判断时说一句，全部照跑", () => {
    expect(formatOnce({ run: [], copies: new Map(), alone: new Map(), ms: 0, error: "坏了" }, (f) => f)).toBe("没能判断哪些测试文件与前一步相同（坏了），全部照跑");
  });
});
