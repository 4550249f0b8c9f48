/**
 * 本地脚本服务器（仓库里的工具包 labs/scripted-provider/）装在哪里：和 import("scripted-provider") 一样沿 node_modules 往上找。
 * 在仓库里它是根目录 node_modules 里的一个链接；本目录被单独复制出去时没有它
 * （npm install -D <仓库>/labs/scripted-provider 可以把它链进来），这时用到它的测试跳过，其余照常。
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export function findProviderDir(from: string): string | undefined {
  for (let dir = path.resolve(from); ; dir = path.dirname(dir)) {
    const linked = path.join(dir, "node_modules", "scripted-provider");
    if (fs.existsSync(path.join(linked, "package.json"))) return fs.realpathSync(linked);
    if (path.dirname(dir) === dir) return undefined;
  }
}

/** 本步骤找得到的那一份；找不到时为 undefined。 */
export const providerDir = findProviderDir(fileURLToPath(new URL("../..", import.meta.url)));

/** 要起本地脚本服务器的测试（起 CLI、跑 demo）写成 it.skipIf(withoutProvider)：找不到它时跳过，原因由 vitest.config.ts 说一次。 */
export const withoutProvider = providerDir === undefined;

/** 找不到它时连加载都不行的测试文件：import 了它的值（只 import type 的不算，运行时不加载）。返回相对 testDir 的上一级（步骤目录）的路径。 */
export function testsImportingProvider(testDir: string): string[] {
  const valueImport = /^import\s+(?!type\s)[^;]*?from\s+"scripted-provider"/m;
  return fs
    .readdirSync(testDir)
    .filter((name) => name.endsWith(".test.ts") && valueImport.test(fs.readFileSync(path.join(testDir, name), "utf8")))
    .map((name) => `${path.basename(testDir)}/${name}`)
    .sort();
}
