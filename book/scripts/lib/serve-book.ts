// npm run book 的全部行为（scripts/serve.ts 与仓库根目录的 scripts/book.ts 都调用它）：
// 构建书站的那些文件（docs/、步骤、书站的配置与脚本……见 build-inputs.ts）自上次完整构建以来都没变，就直接发布上次的结果；
// 变了才重新构建（内容没变的图、代码高亮、会话页仍取缓存）。一行说出是哪一种。然后在 127.0.0.1 上发布 dist/，打印网址。
// --no-build 不看有没有变，直接发布上次构建的结果；--port N 换端口（默认 4173，也可以用环境变量 PORT）。
import fs from "node:fs";
import path from "node:path";
import { describeFailure } from "./book-error.ts";
import { buildInputs, changedSince, type BuildInputs } from "./build-inputs.ts";
import { DIST_DIR } from "./paths.ts";
import { parsePort } from "./port.ts";
import { serveDir } from "./static-server.ts";

const BUILD_MODULE = new URL("../build.ts", import.meta.url).href;

/** 什么都没变、可以直接发布上次的结果吗（根目录的 npm run book 据此决定要不要另起一个构建用的进程） */
export function canServeLastBuild(args: string[]): boolean {
  if (args.includes("--no-build")) return fs.existsSync(path.join(DIST_DIR, "index.html"));
  return changedSince(buildInputs())?.length === 0;
}

export async function serveBook(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const parsed = parsePort(args, env);
  if ("error" in parsed) {
    console.error(parsed.error);
    process.exit(2);
  }
  const { port } = parsed;
  if (!args.includes("--no-build") || !fs.existsSync(path.join(DIST_DIR, "index.html"))) {
    const inputs = buildInputs();
    const changed = changedSince(inputs);
    if (changed !== undefined && changed.length === 0) {
      console.log("书站：自上次构建以来 docs/、步骤、书站的配置与脚本都没变，直接发布上次的结果（要强制重建：npm run book:build）");
    } else {
      console.log(
        changed === undefined
          ? "书站：没有上一次完整的构建（第一次运行、上次没构建完，或有一步的 demo 没跑通），现在构建"
          : `书站：${changed.join("、")}变了，重新构建`,
      );
      // 构建要载入 VitePress（几秒），只在需要时才导入。模块名写成变量：仓库根目录的类型检查经过这个文件，
      // 却没有书站的依赖（VitePress 装在 book/ 里，第一次运行书站命令时才装），不该顺着它去查 build.ts
      const build = (await import(BUILD_MODULE)) as { buildBook(inputs: BuildInputs): Promise<void> };
      await build.buildBook(inputs).catch((error: unknown) => {
        console.error(describeFailure(error));
        process.exit(1);
      });
    }
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
}
