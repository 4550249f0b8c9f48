// npm run book：先构建（内容没变的图、代码高亮、会话页都取缓存），再在 127.0.0.1 上发布 dist/，打印网址。
// --no-build 直接发布上次构建的结果；--port N 换端口（默认 4173，也可以用环境变量 PORT）。
import fs from "node:fs";
import path from "node:path";
import { DIST_DIR } from "./lib/paths.ts";
import { serveDir } from "./lib/static-server.ts";

const args = process.argv.slice(2);
const portArg = args.indexOf("--port");
const port = Number(portArg >= 0 ? args[portArg + 1] : (process.env.PORT ?? 4173));
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`端口不对：${args[portArg + 1] ?? process.env.PORT}（要 0–65535 的整数）`);
  process.exit(2);
}
// 构建要载入 VitePress（几秒），只在需要时才导入
if (!args.includes("--no-build") || !fs.existsSync(path.join(DIST_DIR, "index.html"))) await (await import("./build.ts")).buildBook();
const server = await serveDir(DIST_DIR, port).catch((error: NodeJS.ErrnoException) => {
  console.error(error.code === "EADDRINUSE" ? `端口 ${port} 已被占用：换一个，例如 npm run book -- --port 4180` : String(error));
  process.exit(1);
});
console.log(`书站：${server.url}/   （离线可用；按 Ctrl+C 停止）`);
process.on("SIGINT", () => {
  void server.close().then(() => process.exit(0));
});
