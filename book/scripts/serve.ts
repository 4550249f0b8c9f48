// npm run book：先构建（内容没变的图、代码高亮、会话页都取缓存），再在 127.0.0.1 上发布 dist/，打印网址。
// --no-build 直接发布上次构建的结果；--port N 换端口（默认 4173，也可以用环境变量 PORT）。
import fs from "node:fs";
import path from "node:path";
import { DIST_DIR } from "./lib/paths.ts";
import { describeFailure } from "./lib/book-error.ts";
import { parsePort } from "./lib/port.ts";
import { serveDir } from "./lib/static-server.ts";

const args = process.argv.slice(2);
const parsed = parsePort(args, process.env);
if ("error" in parsed) {
  console.error(parsed.error);
  process.exit(2);
}
const { port } = parsed;
// 构建要载入 VitePress（几秒），只在需要时才导入
if (!args.includes("--no-build") || !fs.existsSync(path.join(DIST_DIR, "index.html"))) {
  await (await import("./build.ts")).buildBook().catch((error: unknown) => {
    console.error(describeFailure(error));
    process.exit(1);
  });
}
const server = await serveDir(DIST_DIR, port).catch((error: NodeJS.ErrnoException) => {
  if (error.code === "EADDRINUSE") console.error(`端口 ${port} 已被占用：换一个，例如 npm run book -- --port 4180`);
  else if (error.code === "EACCES") console.error(`端口 ${port} 不让用（1024 以下的端口要管理员权限）：换一个，例如 npm run book -- --port 4180`);
  else console.error(`书站没能在端口 ${port} 上发布：${error.code ?? String(error)}`);
  process.exit(1);
});
console.log(`书站：${server.url}/   （离线可用；按 Ctrl+C 停止）`);
process.on("SIGINT", () => {
  void server.close().then(() => process.exit(0));
});
