import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../lib/paths.ts";
import { groupFiles, matchGroup, parseReadingOrder } from "../lib/reading-order.ts";
import { compareSteps, formatStepDiff } from "../lib/step-diff.ts";
import { worktreeFiles } from "../lib/step-files.ts";
import { listSteps, stepDir, stepNumber } from "../lib/steps.ts";

// 书站的步骤页模块在运行时才导入：它的类型牵涉 book/ 自己的依赖（Shiki），根目录的类型检查不装它们（book/ 的 tsconfig 另查）
async function bookStepPages(): Promise<{ stepPage(steps: string[], step: string, chapters: never[], hooks: never): string }> {
  return import(pathToFileURL(path.join(repoRoot, "book", "scripts", "lib", "steps.ts")).href);
}

const README = `# stepXX

**阅读顺序**（说明）

1. 本章的想法：\`src/sse.ts\`、\`src/providers/\` —— 先读解析器
2. 防线：\`src/session-*.ts\`、\`src/**/guard.ts\`
3. 其他文件：\`bench/\`

**比 step07 多了什么**

1. 这不是阅读顺序的条目：\`src/x.ts\`
`;

describe("阅读顺序（README 的 **阅读顺序** 一节）", () => {
  it("解析编号条目：组名、反引号里的路径；列表之后的内容不算", () => {
    expect(parseReadingOrder(README)).toEqual([
      { title: "本章的想法", patterns: ["src/sse.ts", "src/providers/"] },
      { title: "防线", patterns: ["src/session-*.ts", "src/**/guard.ts"] },
      { title: "其他文件", patterns: ["bench/"] },
    ]);
    expect(parseReadingOrder("# 没有这一节\n")).toEqual([]);
    expect(parseReadingOrder(undefined)).toEqual([]);
    expect(parseReadingOrder(README.replace(/\n/g, "\r\n"))).toHaveLength(3);
  });

  it("模式：文件名、目录前缀、* 不跨目录、** 跨目录；第一个匹配的组胜出", () => {
    const groups = parseReadingOrder(README);
    expect(matchGroup("src/sse.ts", groups)).toEqual({ group: 0, pattern: 0 });
    expect(matchGroup("src/providers/a/b.ts", groups)).toEqual({ group: 0, pattern: 1 });
    expect(matchGroup("src/session-lock.ts", groups)).toEqual({ group: 1, pattern: 0 });
    expect(matchGroup("src/session/x.ts", groups)).toBeUndefined();
    expect(matchGroup("src/retry/deep/guard.ts", groups)).toEqual({ group: 1, pattern: 1 });
    expect(matchGroup("src/ssexts", groups)).toBeUndefined(); // 点是字面的点
    expect(matchGroup("src/providers", groups)).toBeUndefined(); // 目录模式只匹配目录下的文件
  });

  it("分组：声明的组按模式先后排，没写到的落到默认组，同名的组并在一起，测试最后，噪音排在各组最后", () => {
    const files = ["test/a.test.ts", "README.md", "src/providers/z.ts", "src/main.ts", "src/sse.ts", "bench/x.ts", "package.json", "tsconfig.json", "src/providers/a.ts"];
    expect(groupFiles(files, parseReadingOrder(README))).toEqual([
      { title: "本章的想法", files: ["src/sse.ts", "src/providers/a.ts", "src/providers/z.ts"] },
      { title: "其他文件", files: ["bench/x.ts", "tsconfig.json", "README.md", "package.json"] },
      { title: "src/", files: ["src/main.ts"] },
      { title: "测试", files: ["test/a.test.ts"] },
    ]);
    // 声明了「测试」组：没写到的文件仍排在它前面
    const withTests = parseReadingOrder("**阅读顺序**\n\n1. 想法：`src/sse.ts`\n2. 测试：`test/`\n");
    expect(groupFiles(files, withTests).map((g) => g.title)).toEqual(["想法", "src/", "其他文件", "测试"]);
    // 没有阅读顺序：src/ → 其他文件 → 测试，和从前一样
    expect(groupFiles(files, []).map((g) => g.title)).toEqual(["src/", "其他文件", "测试"]);
  });

  const steps = listSteps(repoRoot);
  const source = worktreeFiles(repoRoot);

  it.each(steps)("%s 的 README 声明了阅读顺序，写在「比上一步多了什么」之前，覆盖 src/ 的每个文件，没有过时的模式", (step) => {
    const readme = fs.readFileSync(path.join(stepDir(repoRoot, step), "README.md"), "utf8");
    const groups = parseReadingOrder(readme);
    expect(groups.length, "README 里没有 **阅读顺序** 一节").toBeGreaterThan(1);
    const at = readme.indexOf("**阅读顺序**");
    const next = readme.search(/^\*\*(比 step\d\d 多了什么|这一步做了什么)\*\*/m);
    expect(next, "找不到「比 stepNN 多了什么」或「这一步做了什么」").toBeGreaterThan(0);
    expect(at).toBeLessThan(next);
    const files = source.files(step);
    const undeclared = files.filter((f) => f.startsWith("src/") && matchGroup(f, groups) === undefined);
    expect(undeclared, "这些 src/ 文件不在阅读顺序的任何一组里").toEqual([]);
    const stale = groups.flatMap((g) => g.patterns.filter((p) => !files.some((f) => matchGroup(f, [{ title: g.title, patterns: [p] }]) !== undefined)));
    expect(stale, "这些模式一个文件也不匹配（文件改名或删除了？）").toEqual([]);
  });

  // 阅读顺序说的是真话（issue 48）：第一组「本章的想法」正是步骤 package.json 里 ideaFiles 列出的文件，
  // 它们都是这一章新写或改过的、不在防线目录里；防线目录（src/guards/、src/providers/guards/）自成一组。
  const isGuard = (file: string) => /^src\/(.+\/)?guards\//.test(file);
  const labelled = steps.filter((step) => (stepNumber(step) ?? 0) >= 6);

  it.each(labelled)("%s：第一组就是 package.json 的 ideaFiles，都是这一章的，不在防线目录里；防线目录自成一组", (step) => {
    const pkg = JSON.parse(fs.readFileSync(path.join(stepDir(repoRoot, step), "package.json"), "utf8")) as { ideaFiles?: unknown };
    const idea = pkg.ideaFiles;
    expect(Array.isArray(idea) && idea.length > 0, "package.json 里没有 ideaFiles（本章想法的文件清单）").toBe(true);
    const files = source.files(step);
    const groups = parseReadingOrder(fs.readFileSync(path.join(stepDir(repoRoot, step), "README.md"), "utf8"));
    const inGroup = (g: number) => files.filter((f) => matchGroup(f, groups)?.group === g);
    expect(inGroup(0).sort(), "README 阅读顺序的第一组与 ideaFiles 不一致").toEqual([...(idea as string[])].sort());
    const previous = steps[steps.indexOf(step) - 1] ?? "";
    const unchanged = (idea as string[]).filter((f) => source.read(previous, f)?.toString("utf8").replace(/\r\n/g, "\n") === source.read(step, f)?.toString("utf8").replace(/\r\n/g, "\n"));
    expect(unchanged, `这些「本章的想法」与 ${previous} 一字不差：不是这一章写的`).toEqual([]);
    expect((idea as string[]).filter(isGuard), "防线目录里的文件不是本章的想法").toEqual([]);
    const guards = files.filter(isGuard);
    expect(guards.length, "这一步没有防线目录").toBeGreaterThan(0);
    const guardGroups = new Set(guards.map((f) => matchGroup(f, groups)?.group));
    expect(guardGroups.size, "防线目录的文件分散在几组里").toBe(1);
    const [g] = [...guardGroups];
    expect(g === undefined ? "" : groups[g]?.title, "防线那一组的组名要说它是防线").toMatch(/防线/);
    expect(inGroup(g ?? -1).filter((f) => !isGuard(f)), "防线那一组混进了别的文件").toEqual([]);
  });

  it("07 → 08：打印的第一段 src/ 差异是 SSE 或模型服务，排在 demo、扩展宿主、循环之前", () => {
    const c = compareSteps(repoRoot, "step07-abort-extensions", "step08-real-model", { worktree: true });
    const text = formatStepDiff(c);
    const hunks = [...text.matchAll(/^━━ (src\/\S+?)(（新增）)? ━━$/gm)].map((m) => m[1] ?? "");
    expect(hunks[0]).toMatch(/^src\/(sse\.ts|providers\/)/);
    const first = (f: string) => hunks.indexOf(f);
    const idea = Math.max(first("src/sse.ts"), first("src/providers/openai-completions.ts"), first("src/providers/anthropic-messages.ts"));
    for (const later of ["src/demo.ts", "src/extensions.ts", "src/guards/extensions.ts", "src/agent-loop.ts"]) {
      expect(first(later), later).toBeGreaterThan(idea);
    }
    expect(text).toMatch(/^════ 本章的想法 ════$/m);
  });

  it("书站的步骤页：文件清单与差异表按同样的组、同样的顺序", async () => {
    const hooks = { figure: () => ({ url: "", width: 0, height: 0 }), pageFor: () => undefined, sessions: () => [] };
    const page = (await bookStepPages()).stepPage(["step07-abort-extensions", "step08-real-model"], "step08-real-model", [], hooks as never);
    const section = (title: string) => page.slice(page.indexOf(title), page.indexOf("\n## ", page.indexOf(title) + 1));
    const headings = (text: string) => [...text.matchAll(/^\*\*([^*]+)\*\*$/gm)].map((m) => m[1]);
    const declared = parseReadingOrder(fs.readFileSync(path.join(stepDir(repoRoot, "step08-real-model"), "README.md"), "utf8")).map((g) => g.title);
    expect(headings(section("## 文件（")).slice(0, 3)).toEqual(declared.slice(0, 3));
    expect(headings(section("## 与上一步相比"))[0]).toBe("本章的想法");
    expect(section("## 与上一步相比").indexOf("src/sse.ts")).toBeLessThan(section("## 与上一步相比").indexOf("src/demo.ts"));
  });
});
