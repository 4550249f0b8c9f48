import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { findCycle, folderEdges, importEdges } from "../lib/import-graph.ts";
import { repoRoot } from "../lib/paths.ts";
import { listSteps, stepDir } from "../lib/steps.ts";
import { makeFixtureRoot, removeFixtureRoot, writeFiles } from "./helpers/fixture.ts";

// 步骤的 src/ 里没有 import 环（DESIGN §4.1）：一个文件不回头引用引用它的文件（只为类型的引用也算），
// src/ 下的子目录在运行时也不互相引用（providers/ 用 retry/，retry/ 就不能再用 providers/）。
// 解析用的是 TypeScript 自己的解析器与模块解析，见 scripts/lib/import-graph.ts。

const root = makeFixtureRoot("import-cycles");
afterAll(() => removeFixtureRoot(root));

/** 在临时目录里造一个 src/，返回它的路径 */
function fixture(name: string, files: Record<string, string>): string {
  const src = path.join(root, name, "src");
  writeFiles(src, files);
  return src;
}

describe("检查器自己：认得出环", () => {
  it("两个文件互相引用（一边只为类型）：文件的环", () => {
    const src = fixture("type-cycle", {
      "host.ts": 'import { stage } from "./staging.js";\nexport class Host {}\nexport const run = () => stage;\n',
      "staging.ts": 'import type { Host } from "./host.js";\nexport const stage = (h?: Host) => h;\n',
    });
    const edges = importEdges(src);
    expect(edges).toEqual([
      { from: "host.ts", to: "staging.ts", typeOnly: false },
      { from: "staging.ts", to: "host.ts", typeOnly: true },
    ]);
    expect(findCycle(edges)).toEqual(["host.ts", "staging.ts", "host.ts"]);
  });

  it("export … from、import() 与 import(\"…\") 类型也是边；src/ 外面的、包名不算", () => {
    const src = fixture("kinds", {
      "a.ts": 'export { b } from "./b.js";\nexport const load = () => import("./c.js");\nimport fs from "node:fs";\nexport const f = fs;\n',
      "b.ts": 'export const b = 1;\nexport type C = typeof import("./c.js");\n',
      "c.ts": 'import "../outside.js";\nexport const c = 1;\n',
    });
    expect(importEdges(src)).toEqual([
      { from: "a.ts", to: "b.ts", typeOnly: false },
      { from: "a.ts", to: "c.ts", typeOnly: false },
      { from: "b.ts", to: "c.ts", typeOnly: true },
    ]);
    expect(findCycle(importEdges(src))).toBeUndefined();
  });

  it("两个子目录在运行时互相引用：目录的环；经过 src/ 本身、只为类型的不算", () => {
    const src = fixture("folders", {
      "providers/stream.ts": 'import { retry } from "../retry/http.js";\nexport const stream = () => retry;\n',
      "providers/error.ts": 'export const describe = () => "";\n',
      "retry/http.ts": 'import { describe } from "../providers/error.js";\nexport const retry = describe;\n',
      "tools/types.ts": 'import { note } from "../guards/shown.js";\nexport interface Tool { n: typeof note }\n',
      "tools/calc.ts": 'export interface Calc { n: number }\n',
      "guards/shown.ts": 'import type { Calc } from "../tools/calc.js";\nexport const note = (t?: Calc) => t;\n',
      "types.ts": 'import { stream } from "./providers/stream.js";\nexport const all = stream;\n',
    });
    const edges = importEdges(src);
    expect(findCycle(edges)).toBeUndefined(); // 文件之间没有环
    expect(findCycle(folderEdges(edges))).toEqual(["providers/", "retry/", "providers/"]);
  });
});

const steps = listSteps(repoRoot);

describe("步骤的 src/ 里没有 import 环", () => {
  it.each(steps)("%s：文件之间（连只为类型的引用在内）", (step) => {
    const edges = importEdges(path.join(stepDir(repoRoot, step), "src"));
    expect(edges.length, "一条 import 也没找到：检查器什么也没查").toBeGreaterThan(0);
    expect(findCycle(edges), "这几个文件绕成了一个环").toBeUndefined();
  });

  it.each(steps)("%s：子目录之间（运行时）", (step) => {
    const edges = importEdges(path.join(stepDir(repoRoot, step), "src"));
    expect(findCycle(folderEdges(edges)), "这几个目录在运行时互相引用").toBeUndefined();
  });

  it("查过的步骤里有子目录之间的引用（step09：providers/ → retry/、retry/ → guards/……）", () => {
    const edges = importEdges(path.join(stepDir(repoRoot, "step09-retry-timeout"), "src"));
    const folders = new Set(folderEdges(edges).map((e) => `${e.from} → ${e.to}`));
    expect([...folders]).toEqual(expect.arrayContaining(["providers/ → retry/", "retry/ → guards/", "providers/ → providers/guards/"]));
  });
});
