// npm run book 在什么都没变时直接发布上次的结果（issue 49 第 2 条）：判断「变没变」的输入清单与记录。
// 在一个临时的仓库样子的目录里，本进程内：改哪一块，就说哪一块变了；生成的东西、依赖、会话不算输入。
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { buildInputs, changedSince, forgetBuild, recordBuild } from "../../book/scripts/lib/build-inputs.ts";

let root: string;
let stamp: string;
let dist: string;
const write = (rel: string, text: string) => {
  const file = path.join(root, ...rel.split("/"));
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
};

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "book-inputs-"));
  write("docs/8.1-a.md", "# 8.1\n");
  write("labs/mini-agent-harness/step01-cli/src/main.ts", "export {};\n");
  write("book/.vitepress/config.ts", "export default {};\n");
  write("scripts/lib/x.ts", "export {};\n");
  write("research/R07.md", "# R07\n");
  write("research/package.json", "{}\n");
  stamp = path.join(root, "book", ".cache", "last-build.json");
  dist = path.join(root, "book", "dist");
  write("book/dist/index.html", "<html></html>");
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

describe("书站的输入变没变", () => {
  it("记下一次完整的构建之后：什么都没改就是「没变」，改了哪一块就说哪一块", () => {
    recordBuild(buildInputs(root), stamp);
    expect(changedSince(buildInputs(root), stamp, dist)).toEqual([]);
    write("docs/8.1-a.md", "# 8.1 改过\n");
    write("labs/mini-agent-harness/step01-cli/src/main.ts", "export const x = 1;\n");
    expect(changedSince(buildInputs(root), stamp, dist)).toEqual(["docs/", "步骤与 labs/"]);
    recordBuild(buildInputs(root), stamp);
    write("book/.vitepress/config.ts", "export default { title: 1 };\n");
    write("research/R07.md", "# R07 改过\n");
    expect(changedSince(buildInputs(root), stamp, dist)).toEqual(["书站的配置与脚本（book/、scripts/）", "仓库里的其他说明"]);
  });

  it("生成的东西、依赖、运行时的会话、书站的缓存与截图都不算输入", () => {
    recordBuild(buildInputs(root), stamp);
    for (const rel of ["book/dist/x.html", "book/.gen/a.md", "book/.gen-pages/b.html", "book/screenshots/a.png", "book/node_modules/v/index.js", "labs/mini-agent-harness/step01-cli/.sessions/a.jsonl", "labs/mini-agent-harness/step01-cli/node_modules/x.js", "research/node_modules/p/README.md", "book/.vitepress/cache/deps.json"]) write(rel, "x");
    expect(changedSince(buildInputs(root), stamp, dist)).toEqual([]);
  });

  it("没有记录（第一次、上次构建半途失败、有一步的 demo 没跑通）或 dist/ 不在了：要构建", () => {
    expect(changedSince(buildInputs(root), stamp, dist)).toBeUndefined();
    recordBuild(buildInputs(root), stamp);
    forgetBuild(stamp); // 构建一开始就作废上次的记录
    expect(changedSince(buildInputs(root), stamp, dist)).toBeUndefined();
    recordBuild(buildInputs(root), stamp);
    fs.rmSync(dist, { recursive: true });
    expect(changedSince(buildInputs(root), stamp, dist)).toBeUndefined();
  });
});
