import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { checkDocs, checkDocsWithStats, runDocsCheck } from "../lib/docs-checker.ts";
import { chapterSizeProblems } from "../lib/docs/deep-pages.ts";
import { makeFixtureRoot, removeFixtureRoot, stepPath, writeFiles, writeStep } from "./helpers/fixture.ts";

// main.ts：前 11 行是真代码，后面填充到 130 行，方便测范围
const MAIN_HEAD = [
  `import path from "node:path";`,
  ``,
  `export function main(): void {`,
  `  const projectRoot = process.cwd();`,
  `  const files: string[] = [];`,
  `  for (const file of files) {`,
  `    const abs = path.resolve(projectRoot, file);`,
  `    console.log(abs);`,
  `  }`,
  `  console.log("再见。");`,
  `}`,
];
const MAIN = [...MAIN_HEAD, ...Array.from({ length: 130 - MAIN_HEAD.length }, (_, i) => `// 填充 ${i + 12}`)].join("\n") + "\n";
const GOLDEN = "你> 你好\n助手> 这是一段很长\n[已取消]\n再见。\n";
const STEP = "step07-abort-extensions";
const CHAPTER = "docs/8.5-abort-and-extensions.md";

let root: string;

function chapter(body: string, frontMatter = `step: ${STEP}`): void {
  writeFiles(root, { [CHAPTER]: `---\ntitle: 取消\n${frontMatter}\n---\n\n${body}` });
}
// 正文从第 6 行开始（front matter 4 行 + 1 空行）
const BODY_START = 6;

function fence(lines: string[], lang = "ts"): string {
  return ["```" + lang, ...lines, "```", ""].join("\n");
}

beforeAll(() => {
  root = makeFixtureRoot("docs");
  writeStep(root, STEP, {
    "src/main.ts": MAIN,
    "src/types.ts": "// 类型\nexport type StopReason = \"stop\" | \"aborted\";\nexport type X = 1;\n",
    "src/tools/types.ts": "// 工具类型\nexport interface Tool {}\nexport type Y = 2;\n",
    "extensions/logger.ts": "export default function logger(): void {\n  console.log(\"[扩展] 已加载\");\n}\n",
    "expected-output.txt": GOLDEN,
  });
  writeStep(root, "step03-streaming", {
    "src/fake-model.ts": Array.from({ length: 40 }, (_, i) => `// 第 ${i + 1} 行`).join("\n") + "\n",
  });
});
afterAll(() => removeFixtureRoot(root));
beforeEach(() => fs.rmSync(path.join(root, "docs"), { recursive: true, force: true, maxRetries: 10 }));

describe("章节与 front matter", () => {
  it("没有 docs/ 目录就是 0 章、0 个问题", () => {
    expect(checkDocsWithStats(root)).toEqual({ problems: [], stats: { chapters: 0, deepPages: 0, citations: 0, transcripts: 0 } });
  });

  it("npm run docs:check 在没有 docs/（或章节被清空）时失败，并说期望至少几章、几处引用", () => {
    let text = "";
    expect(runDocsCheck(root, { write: (t: string) => (text += t) })).toBe(1);
    expect(text).toContain("只查到 0 章，期望至少 9");
    expect(text).toContain("只查到 0 处代码引用，期望至少 250");
    expect(text).toContain("文档检查失败");
    expect(text).not.toContain("文档检查通过");
    writeFiles(root, { "docs/README.md": "# 地图\n" });
    text = "";
    expect(runDocsCheck(root, { write: (t: string) => (text += t) })).toBe(1);
  });

  it("docs/README.md 不算章节", () => {
    writeFiles(root, { "docs/README.md": "见 src/main.ts:999\n" });
    expect(checkDocs(root)).toEqual([]);
  });

  it("front matter 里写了不存在的步骤会报在那一行", () => {
    chapter("正文\n", "step: step99-nothing");
    const problems = checkDocs(root);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ file: CHAPTER, line: 3 });
    expect(problems[0]?.message).toContain("step99-nothing");
  });

  it("多步骤章节里不写步骤的引用要报错，写了就通过", () => {
    chapter(
      fence(["// src/main.ts:1", `import path from "node:path";`]) + `另见 \`path.resolve\`（${STEP}/src/main.ts:7）与 \`第 38 行\`（step03-streaming/src/fake-model.ts:38）。\n`,
      `steps: [step03-streaming, ${STEP}]`,
    );
    const problems = checkDocs(root);
    expect(problems).toHaveLength(1);
    expect(problems[0]?.line).toBe(BODY_START + 1);
    expect(problems[0]?.message).toContain("必须写明步骤");
  });

  it("也认列表写法的 steps:", () => {
    chapter(`见 \`path.resolve\`，src/main.ts:7\n`, `steps:\n  - ${STEP}`);
    expect(checkDocs(root)).toEqual([]);
  });
});

describe("代码块引用", () => {
  it("与源码一致的代码块通过，并计入统计", () => {
    chapter(fence(["// src/main.ts:3-11", ...MAIN_HEAD.slice(2, 11)]));
    const { problems, stats } = checkDocsWithStats(root);
    expect(problems).toEqual([]);
    expect(stats).toEqual({ chapters: 1, deepPages: 0, citations: 1, transcripts: 0 });
  });

  it("行尾空白不算差异，说明文字（节选）可以跟在引用后面", () => {
    chapter(fence(["// src/main.ts:3-5（节选）", ...MAIN_HEAD.slice(2, 5).map((l) => `${l}   `)]));
    expect(checkDocs(root)).toEqual([]);
  });

  it("范围错一行就报错，指出章节行号、源文件行和两边的内容", () => {
    chapter(fence(["// src/main.ts:4-12", ...MAIN_HEAD.slice(2, 11)]));
    const problems = checkDocs(root);
    expect(problems).toHaveLength(1);
    const p = problems[0];
    expect(p?.file).toBe(CHAPTER);
    expect(p?.line).toBe(BODY_START + 2); // 代码块里引用注释的下一行
    expect(p?.message).toContain(`${STEP}/src/main.ts:4-12`);
    expect(p?.message).toContain("源文件第 4 行是「  const projectRoot = process.cwd();」");
    expect(p?.message).toContain("文档里写的是「export function main(): void {」");
  });

  it("代码块比范围短时报告缺了哪一行", () => {
    chapter(fence(["// src/main.ts:3-12", ...MAIN_HEAD.slice(2, 11)]));
    const [p] = checkDocs(root);
    expect(p?.message).toContain("引用范围到第 12 行");
    expect(p?.message).toContain("// 填充 12");
  });

  it("整段统一少缩进（书里常见的排版）也算一致，但缩进不统一不行", () => {
    const body = MAIN_HEAD.slice(5, 9); // 第 6-9 行，最少缩进 2
    chapter(fence(["// src/main.ts:6-9", ...body.map((l) => l.slice(2))]));
    expect(checkDocs(root)).toEqual([]);
    chapter(fence(["// src/main.ts:6-9", body[0]?.slice(2) ?? "", ...body.slice(1)]));
    const [p] = checkDocs(root);
    expect(p?.message).toContain("源文件第 7 行");
  });

  it("// … 省略行可以代表任意多行，/* … */ 可以代表行内任意文字", () => {
    chapter(
      fence([
        "// src/main.ts:3-11（节选）",
        "export function main(): void {",
        "  // …",
        "  for (const file of files) {",
        "    const abs = path.resolve(projectRoot, /* … */);",
        "    // …（省略：打印）",
        "  }",
        "  // ...",
        "}",
      ]),
    );
    expect(checkDocs(root)).toEqual([]);
  });

  it("省略行可以出现在开头和结尾", () => {
    chapter(fence(["// src/main.ts:1-11", "// …", "  for (const file of files) {", "// …"]));
    expect(checkDocs(root)).toEqual([]);
  });

  it("省略之间的行必须连续且按顺序出现", () => {
    chapter(
      fence([
        "// src/main.ts:3-11",
        "export function main(): void {",
        "  // …",
        "    console.log(abs);",
        "    const abs = path.resolve(projectRoot, file);",
        "  // …",
        "}",
      ]),
    );
    const problems = checkDocs(root);
    expect(problems).toHaveLength(1);
    // console.log(abs) 对上了源文件第 8 行，可下一行应是第 9 行的「  }」
    expect(problems[0]?.line).toBe(BODY_START + 5);
    expect(problems[0]?.message).toContain("源文件第 9 行是「  }」");
    expect(problems[0]?.message).toContain("const abs = path.resolve(projectRoot, file);");
  });

  it("没有开头省略标记时，第一行必须是范围的第一行", () => {
    chapter(fence(["// src/main.ts:1-11", "export function main(): void {", "// …", "}"]));
    const [p] = checkDocs(root);
    expect(p?.line).toBe(BODY_START + 2);
    expect(p?.message).toContain(`源文件第 1 行是「import path from "node:path";」`);
  });

  it("引用范围超出文件、文件不存在都会报告", () => {
    chapter(fence(["// src/main.ts:125-140", "// …"]) + fence(["// src/nope.ts:1-2", "x"]));
    const problems = checkDocs(root);
    expect(problems.map((p) => p.line)).toEqual([BODY_START + 1, BODY_START + 5]);
    expect(problems[0]?.message).toContain("只有 130 行");
    expect(problems[1]?.message).toContain("文件不存在");
  });

  it("引用可以写明别的步骤，以它为准", () => {
    chapter(fence(["// step03-streaming/src/fake-model.ts:36-38", "// 第 36 行", "// 第 37 行", "// 第 38 行"]));
    expect(checkDocs(root)).toEqual([]);
  });

  it("extensions/ 下的文件也能引用", () => {
    chapter(fence(["// extensions/logger.ts:1-3（节选）", "export default function logger(): void {", "  // …", "}"]));
    expect(checkDocs(root)).toEqual([]);
  });

  it("第一行不是引用注释的代码块（如 mermaid）不检查", () => {
    chapter(fence(["flowchart LR", "  A --> B"], "mermaid") + fence(["// 随手写的示例", "const x = 1;"]));
    expect(checkDocsWithStats(root).stats.citations).toBe(0);
  });
});

describe("正文里的行号引用", () => {
  it("范围内的引用通过，越界的报告文件与行数", () => {
    chapter("合法：`path.resolve`（`src/main.ts:7`）、`main`（src/main.ts:1-130）。\n越界：`src/main.ts:120-140`。\n");
    const problems = checkDocs(root);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ file: CHAPTER, line: BODY_START + 1 });
    expect(problems[0]?.message).toContain("src/main.ts:120-140");
    expect(problems[0]?.message).toContain("只有 130 行");
  });

  it("只写文件名（main.ts:46）时在步骤的 src/ 里找唯一的同名文件", () => {
    chapter("main.ts:46 是 `填充 46`。\nmain.ts:400 越界。\ntypes.ts:3 有歧义。\nloader.ts:413-424 找不到。\nlogger.ts:2 在 extensions 里：`已加载`。\n");
    const problems = checkDocs(root);
    expect(problems.map((p) => p.line)).toEqual([BODY_START + 1, BODY_START + 2, BODY_START + 3]);
    expect(problems[0]?.message).toContain("只有 130 行");
    expect(problems[1]?.message).toContain("有歧义");
    expect(problems[1]?.message).toContain("src/tools/types.ts");
    expect(problems[2]?.message).toContain("找不到文件 loader.ts");
  });

  it("续写 `、:120-124` 与 `与 :126-136` 指向同一个文件", () => {
    chapter("源码位置：`path.resolve` src/main.ts:7（解析）、`填充 120` :120-124 与 `:126-136`。\n");
    const { problems, stats } = checkDocsWithStats(root);
    expect(stats.citations).toBe(3);
    expect(problems).toHaveLength(1);
    expect(problems[0]?.message).toContain(`${STEP}/src/main.ts:126-136`);
  });

  it("引用点名的符号（前后最近的行内代码）必须出现在被引的行里：行移走了就报错", () => {
    chapter("交互模式里 `projectRoot` 是当前目录（`src/main.ts:4`）。\n");
    expect(checkDocs(root)).toEqual([]);
    chapter("交互模式里 `projectRoot` 是当前目录（`src/main.ts:5`）。\n");
    const moved = checkDocs(root);
    expect(moved).toHaveLength(1);
    expect(moved[0]?.message).toBe(`引用 src/main.ts:5 点名的 \`projectRoot\` 不在 ${STEP}/src/main.ts 第 5 行里（代码移动了？）`);
  });

  it("符号可以写在引用之后；标识符对上也算（`ExtensionHost.emit` 对上 `emit(`）；文件名不算符号", () => {
    chapter("见 src/main.ts:7（`path.resolve(projectRoot, file)`）。\n见 `console.log(value)`：src/main.ts:8。\n");
    expect(checkDocs(root)).toEqual([]);
    chapter("`src/types.ts` 见 src/main.ts:7。\n");
    expect(checkDocs(root)[0]?.message).toContain("没有点名它指的是什么");
  });

  it("续写不跨行", () => {
    chapter("`path.resolve`：src/main.ts:7\n与 :999 无关。\n");
    expect(checkDocs(root)).toEqual([]);
  });

  it("跨步骤引用 step03-streaming/src/fake-model.ts:38", () => {
    chapter("此前是 `第 38 行` step03-streaming/src/fake-model.ts:38，越界的是 step03-streaming/src/fake-model.ts:41。\n");
    const problems = checkDocs(root);
    expect(problems).toHaveLength(1);
    expect(problems[0]?.message).toContain("只有 40 行");
  });

  it("Pi 的源码引用与 URL 都跳过，续写也跟着跳过", () => {
    chapter(
      [
        "Pi 在 packages/agent/src/agent-loop.ts:629-635 与 :644-650 检查两次。",
        "见 `@earendil-works/pi-ai@1.6.0 src/utils/overflow.ts:132-160`。",
        "链接 https://github.com/earendil-works/pi/blob/main/src/main.ts:999 不算。",
        "node_modules/@earendil-works/pi-agent-core/dist/index.js:12 也不算。",
        "发现目录见 packages/coding-agent/src/core/extensions/loader.ts:699-723，规则见（loader.ts:631-640）。",
        "",
        fence(["// packages/agent/src/agent.ts:306-314", "随便什么内容"]),
      ].join("\n"),
    );
    const { problems, stats } = checkDocsWithStats(root);
    expect(problems).toEqual([]);
    expect(stats.citations).toBe(0);
  });

  it("代码块里的文字不当作正文引用", () => {
    chapter(fence(["const s = 'src/main.ts:999';"]));
    expect(checkDocs(root)).toEqual([]);
  });

  it("没有 step: 的章节里引用步骤文件要报错", () => {
    chapter("见 src/main.ts:7。\n", "title2: 无步骤");
    const [p] = checkDocs(root);
    expect(p?.message).toContain("front matter 没有 step:");
  });
});

describe("范围引用要盖住它点名的定义", () => {
  // 一个会话读写文件：函数、类里的静态方法、值为函数的对象、普通常量
  const SOURCE = [
    `import fs from "node:fs";`, //                       1
    ``, //                                                 2
    `/** 按行切开文件。 */`, //                            3
    `export function readLines(file: string): string[] {`, // 4
    `  const text = fs.readFileSync(file, "utf8");`, //    5
    `  return text.split("\\n");`, //                      6
    `}`, //                                                7
    ``, //                                                 8
    `export class Session {`, //                           9
    `  static open(file: string): Session {`, //           10
    `    readLines(file);`, //                             11
    `    return new Session();`, //                        12
    `  }`, //                                              13
    `}`, //                                                14
    ``, //                                                 15
    `export const handlers = {`, //                        16
    `  start: () => "开始",`, //                           17
    `};`, //                                               18
    `const LIMIT = 3;`, //                                 19
    `console.log(LIMIT, handlers);`, //                    20
  ];
  const FILE = "src/session-lines.ts";
  const source = (lines: string[]) => writeFiles(stepPath(root, STEP), { [FILE]: `${lines.join("\n")}\n` });
  const cite = (range: string, symbol = "readLines") => chapter(`按字节切行的是 \`${symbol}\`（\`${FILE}:${range}\`）。\n`);
  const run = () => {
    let text = "";
    const code = runDocsCheck(root, { write: (t: string) => (text += t) });
    return { code, text };
  };

  beforeEach(() => source(SOURCE));

  it("代码往下挪了两行、引用没跟着改：npm run docs:check 失败，说出定义现在在哪几行；改对范围就通过", () => {
    cite("3-7");
    expect(checkDocs(root)).toEqual([]);
    source(["// 会话文件的读取", "// （新加的两行说明）", ...SOURCE]);
    // 旧范围 3-7 里仍然有 readLines 这个词：只看「提到没有」的旧规则发现不了
    const drifted = run();
    expect(drifted.code).toBe(1);
    expect(drifted.text).toContain(
      `${CHAPTER}:${BODY_START}: 引用 ${FILE}:3-7 切开了 \`readLines\` 的定义：\`readLines\` 在 ${STEP}/${FILE} 第 6–9 行，引用写的是 3–7（范围要盖住整个定义）`,
    );
    cite("5-9");
    expect(checkDocs(root)).toEqual([]);
  });

  it("引用本身挪了两行（4-7 写成 2-5）也一样失败；起点或终点落在定义里面都算切开", () => {
    for (const range of ["2-5", "4-6", "5-11"]) {
      cite(range);
      const problems = checkDocs(root);
      expect(problems, range).toHaveLength(1);
      expect(problems[0]?.message, range).toContain(`第 4–7 行，引用写的是 ${range.replace("-", "–")}`);
    }
  });

  it("盖住整个定义的范围通过：从注释开始、多带几行都可以", () => {
    for (const range of ["4-7", "3-7", "1-8"]) {
      cite(range);
      expect(checkDocs(root), range).toEqual([]);
    }
  });

  it("单行引用只表示「这一行提到它」，不要求盖住定义", () => {
    cite("4");
    expect(checkDocs(root)).toEqual([]);
    cite("11");
    expect(checkDocs(root)).toEqual([]);
  });

  it("只碰到调用处、没碰到定义的范围不受限制", () => {
    cite("10-12");
    expect(checkDocs(root)).toEqual([]);
  });

  it("Session.open 只认 Session 里的 open；方法与值为函数的常量都是定义", () => {
    cite("9-12", "Session.open");
    expect(checkDocs(root)[0]?.message).toContain("`Session.open` 在 " + `${STEP}/${FILE} 第 10–13 行`);
    cite("10-13", "Session.open()");
    expect(checkDocs(root)).toEqual([]);
    cite("16-17", "handlers");
    expect(checkDocs(root)[0]?.message).toContain("第 16–18 行，引用写的是 16–17");
  });

  it("表达式（`readLines(file);`）与值只是数字的常量不算点名定义", () => {
    cite("11-12", "readLines(file);");
    expect(checkDocs(root)).toEqual([]);
    cite("19-20", "LIMIT");
    expect(checkDocs(root)).toEqual([]);
  });
});

describe("golden 输出块", () => {
  const marker = `<!-- golden: ${STEP} -->`;

  it("与 expected-output.txt 一致时通过（允许标记后空行）", () => {
    chapter(`${marker}\n\n${fence(GOLDEN.trimEnd().split("\n"), "text")}`);
    const { problems, stats } = checkDocsWithStats(root);
    expect(problems).toEqual([]);
    expect(stats.transcripts).toBe(1);
  });

  it("不一致时报告第一处不同的行，带期望与实际", () => {
    chapter(`${marker}\n${fence(["你> 你好", "助手> 这是一段很短", "[已取消]", "再见。"], "text")}`);
    const problems = checkDocs(root);
    expect(problems).toHaveLength(1);
    expect(problems[0]?.line).toBe(BODY_START + 3);
    expect(problems[0]?.message).toContain("第 2 行");
    expect(problems[0]?.message).toContain("期望「助手> 这是一段很长」");
    expect(problems[0]?.message).toContain("实际「助手> 这是一段很短」");
  });

  it("少了最后一行也会发现", () => {
    chapter(`${marker}\n${fence(["你> 你好", "助手> 这是一段很长", "[已取消]"], "text")}`);
    const [p] = checkDocs(root);
    expect(p?.message).toContain("期望「再见。」");
  });

  it("lines A-B 只比较那几行", () => {
    chapter(`<!-- golden: ${STEP} lines 2-3 -->\n${fence(["助手> 这是一段很长", "[已取消]"], "text")}`);
    expect(checkDocs(root)).toEqual([]);
    chapter(`<!-- golden: ${STEP} lines 2-3 -->\n${fence(["助手> 这是一段很长"], "text")}`);
    expect(checkDocs(root)[0]?.message).toContain("期望「[已取消]」");
  });

  it("标记后面没有代码块、步骤不存在都会报告", () => {
    chapter(`${marker}\n正文\n\n<!-- golden: step98-none -->\n${fence(["x"])}`);
    const problems = checkDocs(root);
    expect(problems.map((p) => p.line)).toEqual([BODY_START, BODY_START + 3]);
  });
});

describe("深入页 docs/deep/", () => {
  const DEEP = "docs/deep/8.5-guards.md";
  const deep = (body: string, frontMatter = `step: ${STEP}`) => writeFiles(root, { [DEEP]: `---\n${frontMatter}\n---\n\n${body}` });
  const POINTER = "防御细节见[深入：8.5 的防御](deep/8.5-guards.md#loop)。\n";

  it("深入页里的代码块、行内引用与 golden 块和章节一样核对，单独计数", () => {
    chapter(POINTER);
    deep(`<a id="loop"></a>\n\n${fence(["// src/main.ts:3-4", ...MAIN_HEAD.slice(2, 3)])}见 \`path.resolve\`，src/main.ts:99\n\n<!-- golden: ${STEP} -->\n${fence(["你> 你好"], "text")}`);
    const { problems, stats } = checkDocsWithStats(root);
    expect(problems.map((p) => `${p.file}:${p.line}`)).toEqual([`${DEEP}:9`, `${DEEP}:11`, `${DEEP}:16`]);
    expect(problems[0]?.message).toContain("不一致");
    expect(problems[1]?.message).toContain("path.resolve");
    expect(stats).toMatchObject({ chapters: 1, deepPages: 1, citations: 2, transcripts: 1 });
  });

  it("与代码一致、章节链到它、锚点存在时没有问题", () => {
    chapter(POINTER);
    deep(`<a id="loop"></a>\n\n${fence(["// src/main.ts:3-4", ...MAIN_HEAD.slice(2, 4)])}回到[正文](../8.5-abort-and-extensions.md)。\n`);
    expect(checkDocs(root)).toEqual([]);
  });

  it("章节没有链到深入页、深入页的章节号对不上任何一章，都要报告", () => {
    chapter("正文\n");
    deep("内容\n");
    writeFiles(root, { "docs/deep/9.9-nothing.md": "内容\n" });
    const messages = checkDocs(root).map((p) => `${p.file}: ${p.message}`);
    expect(messages).toEqual([
      `${DEEP}: docs/8.5-abort-and-extensions.md 没有链到这一页：读者从章节里找不到它`,
      expect.stringMatching(/^docs\/deep\/9\.9-nothing\.md: .*找不到所属的章节/),
    ]);
  });

  it("链到不存在的深入页、不存在的锚点都会报告在链接那一行", () => {
    chapter(`见[这里](deep/8.5-missing.md)。\n${POINTER}`);
    deep("没有锚点\n");
    const problems = checkDocs(root);
    expect(problems.map((p) => `${p.file}:${p.line}`)).toEqual([`${CHAPTER}:${BODY_START}`, `${CHAPTER}:${BODY_START + 1}`]);
    expect(problems[0]?.message).toContain("docs/deep/8.5-missing.md 不存在");
    expect(problems[1]?.message).toContain('id="loop"');
  });

  it("checkDocs 报告超过 61,000 字节的章节（深入页不受这个限制）", () => {
    chapter(`${"字".repeat(20_400)}\n`);
    deep(`${"字".repeat(30_000)}\n`);
    expect(checkDocs(root).map((p) => `${p.file}:${p.line}`)).toContain(`${CHAPTER}:1`);
    expect(checkDocs(root).filter((p) => p.file === DEEP && p.message.includes("字节"))).toEqual([]);
  });

  it("超过 61,000 字节的章节由 chapterSizeProblems 报告", () => {
    chapter(`${"字".repeat(20_400)}\n`);
    const problems = chapterSizeProblems(root, ["8.5-abort-and-extensions.md"]);
    expect(problems).toHaveLength(1);
    expect(problems[0]?.message).toMatch(/^本章 612\d\d 字节，超过一次读完的上限 61000/);
    chapter("短\n");
    expect(chapterSizeProblems(root, ["8.5-abort-and-extensions.md"])).toEqual([]);
  });
});

describe("排序", () => {
  it("问题按文件、行号排序", () => {
    writeFiles(root, {
      "docs/8.6-b.md": `---\nstep: ${STEP}\n---\nsrc/main.ts:999\n`,
      "docs/8.1-a.md": `---\nstep: ${STEP}\n---\nsrc/main.ts:998\n\`path.resolve\` src/main.ts:7\nsrc/main.ts:997\n`,
    });
    expect(checkDocs(root).map((p) => `${p.file}:${p.line}`)).toEqual(["docs/8.1-a.md:4", "docs/8.1-a.md:6", "docs/8.6-b.md:4"]);
  });
});
