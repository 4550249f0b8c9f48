// npm run book:build：生成 .gen/，再让 VitePress 构建出 dist/（任何静态服务器都能发布，离线可用）。
import { build } from "vitepress";
import { generate } from "./generate.ts";
import { BOOK_DIR, DIST_DIR } from "./lib/paths.ts";

export async function buildBook(): Promise<void> {
  const started = Date.now();
  await generate((line) => console.log(line));
  const t = Date.now();
  await build(BOOK_DIR);
  console.log(`VitePress 构建 ${((Date.now() - t) / 1000).toFixed(1)} 秒；书站已写到 ${DIST_DIR}（共 ${((Date.now() - started) / 1000).toFixed(1)} 秒）`);
}

if (import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith("build.ts")) {
  try {
    await buildBook();
  } catch (error) {
    console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
    process.exit(1);
  }
}
