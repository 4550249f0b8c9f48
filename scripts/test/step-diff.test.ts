import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compareSteps, formatStepDiff } from "../lib/step-diff.ts";
import { makeFixtureRoot, removeFixtureRoot, writeStep } from "./helpers/fixture.ts";

describe("步骤对比（npm run diff）", () => {
  let root: string;
  beforeAll(() => {
    root = makeFixtureRoot("stepdiff");
    writeStep(root, "step02-messages", {
      "README.md": "# step02\n",
      "src/same.ts": "export const same = 1;\n",
      "src/loop.ts": "export function loop() {\n  return 1;\n}\n",
      "src/old.ts": "export const old = true;\n",
      "node_modules/x/index.js": "module.exports = 1;\n",
      ".sessions/a.jsonl": "{}\n",
      "package-lock.json": "{}\n",
    });
    writeStep(root, "step03-streaming", {
      "README.md": "# step03\n",
      "src/same.ts": "export const same = 1;\r\n", // 只差换行符，不算修改
      "src/loop.ts": "export function loop() {\n  return 2;\n}\n",
      "src/stream.ts": "export const stream = 1;\nexport const more = 2;\n",
      "expected-output.txt": "你> 你好\n",
      "node_modules/y/index.js": "module.exports = 2;\n",
      "package-lock.json": "{ \"changed\": true }\n",
    });
  });
  afterAll(() => removeFixtureRoot(root));

  it("分出新增、删除、修改，忽略 node_modules/.sessions/package-lock.json，噪音文件排在最后", () => {
    const c = compareSteps(root, "step02-messages", "step03-streaming");
    expect(c.added).toEqual(["src/stream.ts", "expected-output.txt"]);
    expect(c.removed).toEqual(["src/old.ts"]);
    expect(c.changed).toEqual(["src/loop.ts", "README.md", "package.json"]);
    expect(c.unchanged).toBe(1);
  });

  it("输出：表头、文件清单、每个修改文件的 diff、新增文件的全文，噪音最后", () => {
    const text = formatStepDiff(compareSteps(root, "step02-messages", "step03-streaming"));
    expect(text.startsWith("步骤对比：step02-messages → step03-streaming\n新增 2 个文件，删除 1 个，修改 3 个，未变 1 个\n")).toBe(true);
    expect(text).toContain("  + src/stream.ts\n");
    expect(text).toContain("  - src/old.ts\n");
    expect(text).toContain("--- step02-messages/src/loop.ts\n+++ step03-streaming/src/loop.ts");
    expect(text).toContain("-  return 1;\n+  return 2;");
    expect(text).toContain("+export const stream = 1;\n+export const more = 2;");
    // 代码 diff 在前，噪音（README/package.json/expected-output.txt）在后
    const at = (s: string) => text.indexOf(s);
    expect(at("━━ src/loop.ts")).toBeLessThan(at("━━ src/stream.ts（新增）"));
    expect(at("━━ src/stream.ts（新增）")).toBeLessThan(at("━━ README.md"));
    expect(at("━━ README.md")).toBeLessThan(at("━━ expected-output.txt（新增）"));
    expect(text).not.toContain("node_modules");
    expect(text).not.toContain("package-lock");
    expect(text).not.toContain("\u001b["); // 不是终端就不上色
  });

  it("上色只在要求时发生", () => {
    expect(formatStepDiff(compareSteps(root, "step02-messages", "step03-streaming"), true)).toContain("\u001b[32m+");
  });

  it("相同的步骤：说明完全相同", () => {
    expect(formatStepDiff(compareSteps(root, "step02-messages", "step02-messages"))).toContain("两个步骤的内容完全相同");
  });

  it("参数不对时打印用法并以 2 退出", () => {
    const tsxCli = createRequire(import.meta.url).resolve("tsx/cli");
    const script = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "step-diff.ts");
    const r = spawnSync(process.execPath, [tsxCli, script, "02"], { encoding: "utf8" });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("用法：npm run diff -- <旧步骤> <新步骤>");
  });
});
