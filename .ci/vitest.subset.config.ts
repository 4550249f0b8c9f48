// CI 的 Node 22、24 阶段用这份配置：与根目录的 vitest.config.ts 完全一样，只是 include 换成 .ci/node-subset.txt 里的模式。
// 用法（.ci/run 里）：vitest run --config .ci/vitest.subset.config.ts
import path from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import rootConfig from "../vitest.config.ts";
import { readSubset } from "../scripts/lib/node-subset.ts";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const groups = readSubset(root);
const patterns = groups.flatMap((g) => g.patterns);
process.stdout.write(`只跑子集 .ci/node-subset.txt：${groups.map((g) => g.label).join("、")}（${patterns.length} 个模式）\n`);

export default defineConfig({ ...rootConfig, root, test: { ...rootConfig.test, include: patterns } });
