// 测试里起查看器子进程时用的轻量 TypeScript 加载器：node --import <这个文件> src/cli.ts
// （与 mini-agent-harness 各步骤 test/helpers/ts-loader/ 的同名文件相同，只是这段说明不同）。
//
// 为什么不直接用 tsx：tsx 每次启动都要加载自己和 esbuild 的一大包代码（一个进程约 0.7 秒 CPU，这里约 0.3 秒），
// 而查看器的测试要起十几个进程。这里只做测试需要的两件事——把 .ts 去掉类型、
// 让 "./x.js" 找到 x.ts（查看器在运行时 import 步骤的 src/session.ts，它这样写）——转换结果按内容缓存在临时目录里。
// npm run view 仍然用 tsx；test/cli.test.ts 的第一个用例也经过 tsx，两条路都有测试。
import { register } from "node:module";

register("./hooks.mjs", import.meta.url);
