// 测试里起 CLI 子进程时用的轻量 TypeScript 加载器：node --import <这个文件> src/main.ts
//
// 为什么不直接用 tsx：tsx 每次启动都要加载自己和 esbuild 的一大包代码（一个进程约 0.35 秒 CPU），
// 而一个步骤的测试要起几十个 CLI 进程。这里只做测试需要的两件事——把 .ts 去掉类型、
// 让 "./x.js" 找到 x.ts——转换结果按内容缓存在临时目录里，同一份源码只转换一次。
// npm start / npm run demo 仍然用 tsx；test/pty.test.ts 也用 tsx 起 CLI，两条路都有测试。
import { register } from "node:module";

// Node 26 起 module.register 会打印一条弃用警告（DEP0205），混进测试逐字比较的 stderr。
// 测试要看的是 harness 自己说了什么：只在注册这一下不报弃用，之后照常
const quiet = process.noDeprecation;
process.noDeprecation = true;
try {
  register("./hooks.mjs", import.meta.url);
} finally {
  process.noDeprecation = quiet;
}
