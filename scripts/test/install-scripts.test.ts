// npm 11 默认不运行依赖的安装脚本，并在每次 npm ci 的末尾为每个「还没表态」的包打一段 npm warn install-scripts，
// 看上去像装坏了（issue 49 第 6 条）。三个锁文件（根目录、research/、book/）里每个带安装脚本的包，
// 都要在同一目录 package.json 的 allowScripts 里有一条（true 放行，false 明确不运行），npm ci 才安静。
// 锁文件换了依赖、多出一个带安装脚本的包时，这里先失败，而不是等学习者看到警告。
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../lib/paths.ts";

interface Lock {
  packages: Record<string, { version?: string; hasInstallScript?: boolean }>;
}

/** 锁文件里带安装脚本的依赖：[包名, 版本] */
function withInstallScripts(dir: string): Array<[string, string]> {
  const lock = JSON.parse(fs.readFileSync(path.join(repoRoot, dir, "package-lock.json"), "utf8")) as Lock;
  return Object.entries(lock.packages)
    .filter(([where, entry]) => where !== "" && entry.hasInstallScript === true)
    .map(([where, entry]) => [where.slice(where.lastIndexOf("node_modules/") + "node_modules/".length), entry.version ?? ""]);
}

describe.each([".", "research", "book"])("%s/package.json 的 allowScripts", (dir) => {
  it("锁文件里每个带安装脚本的包都有一条（按名字，或按名字@版本）", () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(repoRoot, dir, "package.json"), "utf8")) as { allowScripts?: Record<string, boolean> };
    const allow = pkg.allowScripts ?? {};
    const found = withInstallScripts(dir);
    expect(found.length, "锁文件里至少有 esbuild：这个检查真的在看东西").toBeGreaterThan(0);
    const uncovered = found.filter(([name, version]) => typeof allow[name] !== "boolean" && typeof allow[`${name}@${version}`] !== "boolean");
    expect(uncovered.map(([name, version]) => `${name}@${version}`)).toEqual([]);
    // 书站与实验都要 esbuild（tsx、Vite 用它）：放行，而不是拒绝
    expect(allow.esbuild).toBe(true);
  });
});
