// 测试里代替 tsx 的命令行：夹具步骤的 src/demo.ts 只是普通 JavaScript，用不着 TypeScript 加载器。
// 每个 demo 省下一次 tsx 启动（约半秒 CPU；golden 与 stress 的测试要跑几十个夹具 demo）。
// 用法与 tsx 相同：node plain-node-cli.mjs src/demo.ts（相对当前目录）。真实步骤的 demo 仍然经过 tsx（各步骤的 golden 测试）。
import fs from "node:fs";
import path from "node:path";

const file = path.resolve(process.argv[2] ?? "");
process.argv.splice(1, 1); // 和 tsx 一样：demo 看到的 argv[1] 是它自己
await import(`data:text/javascript;charset=utf-8,${encodeURIComponent(fs.readFileSync(file, "utf8"))}`);
