// npm run book:build：生成 .gen/，再让 VitePress 构建出 dist/（任何静态服务器都能发布，离线可用）。
// 代码页等静态页面在 VitePress 构建的同时由工作线程写进 .gen-pages/，两边都完成后挪进 dist/。
import fs from "node:fs";
import path from "node:path";
import { build } from "vitepress";
import { generate } from "./generate.ts";
import { describeFailure } from "./lib/book-error.ts";
import { buildInputs, forgetBuild, recordBuild, type BuildInputs } from "./lib/build-inputs.ts";
import { BOOK_DIR, DIST_DIR, PAGES_DIR } from "./lib/paths.ts";

/** 把 .gen-pages/ 下的每个目录整个挪进 dist/（同一个文件系统上是改名，不复制） */
function movePages(): void {
  for (const entry of fs.readdirSync(PAGES_DIR)) {
    const to = path.join(DIST_DIR, entry);
    fs.rmSync(to, { recursive: true, force: true });
    fs.renameSync(path.join(PAGES_DIR, entry), to);
  }
}

/**
 * 构建一次。开始时先记下输入（build-inputs.ts）并作废上次的记录：构建半途失败，下一次 npm run book 不会把半成品当成最新的。
 * 全部完成、也没有哪一步的 demo 失败时，才记下这次的输入。
 */
export async function buildBook(inputs: BuildInputs = buildInputs()): Promise<void> {
  const started = Date.now();
  forgetBuild();
  const { data, pages } = await generate((line) => console.log(line));
  const t = Date.now();
  const site = build(BOOK_DIR).then(() => console.log(`VitePress 构建 ${((Date.now() - t) / 1000).toFixed(1)} 秒`));
  await Promise.all([site, pages]);
  movePages();
  if (data.steps.every((step) => step.demoFailed === undefined)) recordBuild(inputs);
  console.log(`书站已写到 ${DIST_DIR}（共 ${((Date.now() - started) / 1000).toFixed(1)} 秒）`);
}

if (import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith("build.ts")) {
  try {
    await buildBook();
  } catch (error) {
    console.error(describeFailure(error));
    process.exit(1);
  }
}
