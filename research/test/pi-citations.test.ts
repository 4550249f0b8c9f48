// 检查器自己的单元测试：用 fixture 源码目录与 fixture 笔记，证明它既能放行正确引用，也真的会报错。
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import {
  checkCitation,
  checkMarkdownFiles,
  createDirResolver,
  extractCitations,
  findCodeSpans,
  formatProblem,
  splitLines,
  symbolWord,
} from "../scripts/lib/pi-citations.ts";

const here = path.dirname(fileURLToPath(import.meta.url));
const researchDir = path.resolve(here, "..");
const fixtures = path.join(here, "fixtures");
const fixtureSrc = path.join(fixtures, "pi-src");

const resolver = createDirResolver(
  { "@earendil-works/pi-ai": "1.6.0", "@earendil-works/pi-coding-agent": "1.6.0" },
  (name, version) => [path.join(fixtureSrc, ...`${name}@${version}`.split("/"))],
);

function check(file: string) {
  return checkMarkdownFiles([path.join(fixtures, "notes", file)], resolver, (f) => path.relative(fixtures, f));
}

describe("findCodeSpans", () => {
  it("finds single and double backtick spans and skips escaped backticks", () => {
    const spans = findCodeSpans("a `x` b ``y ` z`` \\`not\\` `w`");
    expect(spans.map((s) => s.content)).toEqual(["x", "y ` z", "w"]);
  });

  it("ignores an unclosed backtick", () => {
    expect(findCodeSpans("a ` b")).toEqual([]);
  });
});

describe("extractCitations", () => {
  it("parses ranges, single lines and the symbol forms", () => {
    const md = [
      "`@earendil-works/pi-ai@1.6.0 src/a.ts:1-2`（`foo`）",
      "`@earendil-works/pi-ai@1.6.0 src/a.ts:3` `bar`",
      "`@earendil-works/pi-ai@1.6.0 src/a.ts:3` — `Cls.method()`",
      "`@earendil-works/pi-ai@1.6.0 src/a.ts:3`: `baz`",
      "`@earendil-works/pi-ai@1.6.0 src/a.ts:3`，`notASymbol`",
      "`@earendil-works/pi-ai@1.6.0 src/a.ts:3` 的 `notASymbol`",
      "`@earendil-works/pi-ai@1.6.0 src/a.ts:3` `not a symbol`",
    ].join("\n");
    const { citations, problems } = extractCitations(md, "x.md");
    expect(problems).toEqual([]);
    expect(citations.map((c) => [c.line, c.start, c.end, c.symbol])).toEqual([
      [1, 1, 2, "foo"],
      [2, 3, 3, "bar"],
      [3, 3, 3, "Cls.method()"],
      [4, 3, 3, "baz"],
      [5, 3, 3, undefined],
      [6, 3, 3, undefined],
      [7, 3, 3, undefined],
    ]);
    expect(citations[0]).toMatchObject({
      packageName: "@earendil-works/pi-ai",
      version: "1.6.0",
      sourcePath: "src/a.ts",
    });
  });

  it("skips fenced code blocks, including ~~~ fences and longer closing fences", () => {
    const md = ["~~~", "`@earendil-works/pi-ai@9 src/a.ts`", "~~~~", "````md", "```", "`@earendil-works/pi-ai@9 x`", "````"].join(
      "\n",
    );
    expect(extractCitations(md, "x.md")).toEqual({ citations: [], problems: [] });
  });

  it("reports malformed citations", () => {
    const { citations, problems } = extractCitations("`@earendil-works/pi-ai@1.6.0 src/a.ts:x`", "x.md");
    expect(citations).toEqual([]);
    expect(problems).toHaveLength(1);
    expect(problems[0]?.message).toContain("引用格式不对");
  });
});

describe("helpers", () => {
  it("splitLines does not count the trailing newline as a line", () => {
    expect(splitLines("a\nb\n")).toEqual(["a", "b"]);
    expect(splitLines("a\r\nb")).toEqual(["a", "b"]);
  });

  it("symbolWord keeps the last segment without ()", () => {
    expect(symbolWord("ExtensionRunner.emit")).toBe("emit");
    expect(symbolWord("bindCore()")).toBe("bindCore");
  });

  it("formatProblem prints file:line: message", () => {
    expect(formatProblem({ file: "docs/a.md", line: 7, message: "坏了" })).toBe("docs/a.md:7: 坏了");
  });
});

describe("checker over fixture notes", () => {
  it("accepts every correct citation", () => {
    const result = check("good.md");
    expect(result.problems).toEqual([]);
    expect(result.citations).toHaveLength(7);
    expect(result.citations.map((c) => c.symbol)).toEqual([
      "isOverflow",
      "LIMIT",
      "overflow.isOverflow()",
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });

  it("reports each kind of wrong citation at its line", () => {
    const result = check("bad.md");
    const got = result.problems.map((p) => [p.line, p.message]);
    const expected: Array<[number, string]> = [
      [3, "版本 1.5.0 与钉住的版本 1.6.0 不符"],
      [4, "@earendil-works/pi-tui 不是可引用的包"],
      [5, "里没有文件 src/utils/missing.ts"],
      [6, "行区间 5-99 无效（超出文件末尾；src/utils/overflow.ts 共 6 行）"],
      [7, "行区间 0-2 无效（行号从 1 开始"],
      [8, "行区间 4-2 无效（结束行 2 小于起始行 4"],
      [9, "符号 isOverflow 不在第 5-6 行里；它第一次出现在第 2 行"],
      [10, "符号 isUnderflow 不在第 2-4 行里；整个文件里都没有它"],
      [11, "引用格式不对"],
      [12, "必须是包内的相对路径"],
      [13, "符号 Overflow 不在第 2-4 行里"],
    ];
    expect(got).toHaveLength(expected.length);
    expected.forEach(([line, text], i) => {
      expect(got[i]?.[0]).toBe(line);
      expect(got[i]?.[1]).toContain(text);
    });
    expect(formatProblem(result.problems[0]!)).toMatch(/^notes[\\/]bad\.md:3: /);
  });

  it("a single citation can be checked directly", () => {
    const base = {
      file: "x.md",
      line: 1,
      raw: "r",
      packageName: "@earendil-works/pi-ai",
      version: "1.6.0",
      sourcePath: "src/utils/overflow.ts",
    };
    expect(checkCitation({ ...base, start: 2, end: 4, symbol: "isOverflow" }, resolver)).toEqual([]);
    expect(checkCitation({ ...base, start: 6, end: 6, symbol: "isOverflow" }, resolver)).toHaveLength(1);
    expect(checkCitation({ ...base, start: 7, end: 7 }, resolver)).toHaveLength(1);
  });
});

describe("CLI", () => {
  const tsxCli = path.join(researchDir, "node_modules", "tsx", "dist", "cli.mjs");
  const cli = path.join(researchDir, "scripts", "check-pi-citations.ts");

  it("checks real Pi sources: exit 0 when right, exit 1 with file:line: when wrong", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "pi-cite-"));
    try {
      const good = path.join(dir, "good.md");
      writeFileSync(good, "`@earendil-works/pi-coding-agent@1.6.0 src/core/event-bus.ts:12-33`（`createEventBus`）\n");
      const out = execFileSync(process.execPath, [tsxCli, cli, good], { cwd: dir, encoding: "utf8" });
      expect(out).toContain("1 条 Pi 引用");
      expect(out).toContain("全部成立");

      const bad = path.join(dir, "bad.md");
      writeFileSync(bad, "ok\n`@earendil-works/pi-coding-agent@1.6.0 src/core/event-bus.ts:1-3`（`createEventBus`）\n");
      let status = 0;
      let stdout = "";
      try {
        execFileSync(process.execPath, [tsxCli, cli, bad], { cwd: dir, encoding: "utf8" });
      } catch (error) {
        const e = error as { status: number; stdout: string };
        status = e.status;
        stdout = e.stdout;
      }
      expect(status).toBe(1);
      expect(stdout).toMatch(/^bad\.md:2: .*符号 createEventBus 不在第 1-3 行里/m);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
