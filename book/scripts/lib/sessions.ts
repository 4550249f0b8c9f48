// 会话页面：构建时在临时目录里重新运行 step06–09 的 demo（DEMO_SESSIONS_DIR 指过去，不碰步骤目录里的 .sessions/），
// 再用会话查看器（labs/session-viewer 里 npm run view 调的那三个函数：读、建模、画）把每个会话文件画成页面。
// 四个 demo 同时跑；查看器在本进程里调用，不为每个会话再起一个 tsx 进程。
// 结果按步骤文件内容的哈希缓存：步骤没变就不再跑 demo。
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { runDemo } from "../../../scripts/lib/run-demo.ts";
import { loadSession } from "../../../labs/session-viewer/src/load.ts";
import { buildModel } from "../../../labs/session-viewer/src/model.ts";
import { renderPage } from "../../../labs/session-viewer/src/page.ts";
import { CACHE_DIR, LABS_DIR, ROOT } from "./paths.ts";
import { stepFiles } from "./steps.ts";
import { escapeHtml, sessionUrl, stepUrl } from "./urls.ts";

function stepHash(step: string): string {
  const h = crypto.createHash("sha256");
  const viewerDir = path.join(ROOT, "labs", "session-viewer", "src");
  for (const f of fs.readdirSync(viewerDir).sort()) h.update(f).update(fs.readFileSync(path.join(viewerDir, f)));
  for (const file of stepFiles().files(step)) h.update(file).update("\0").update(stepFiles().read(step, file) ?? Buffer.alloc(0));
  return h.digest("hex").slice(0, 20);
}

/** 一步的会话页面：返回会话名（不带 .jsonl）与 HTML */
async function buildStep(step: string): Promise<Array<{ name: string; html: string }>> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `book-sessions-${step.slice(0, 6)}-`));
  try {
    process.env.DEMO_SESSIONS_DIR = dir; // runDemo 在调用时同步复制环境变量
    const demo = runDemo(path.join(LABS_DIR, step));
    delete process.env.DEMO_SESSIONS_DIR;
    const result = await demo;
    if (result.exitCode !== 0) throw new Error(`${step} 的 demo 失败（退出码 ${result.exitCode}）：\n${result.stderr.slice(-2000)}`);
    const files = fs.readdirSync(dir).filter((f) => f.endsWith(".jsonl")).sort();
    const pages: Array<{ name: string; html: string }> = [];
    for (const f of files) {
      // 与 npm run view -- <文件> --step NN 相同：用这一步自己的加载函数读，再建模、画页面
      const loaded = await loadSession(path.join(dir, f), path.join(LABS_DIR, step));
      const model = buildModel(loaded.lines, { name: loaded.name, step, stepNumber: Number(step.slice(4, 6)), warnings: loaded.warnings });
      pages.push({ name: f.replace(/\.jsonl$/, ""), html: renderPage(model) });
    }
    return pages;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** 写 step06 起每一步的会话页面；返回 步骤 → 会话名 */
export async function writeSessionPages(publicDir: string, steps: string[]): Promise<Map<string, string[]>> {
  const withSessions = steps.filter((s) => Number(s.slice(4, 6)) >= 6);
  const result = new Map<string, string[]>();
  await Promise.all(
    withSessions.map(async (step) => {
      const cacheFile = path.join(CACHE_DIR, "sessions", `${step}-${stepHash(step)}.json`);
      let pages: Array<{ name: string; html: string }>;
      if (fs.existsSync(cacheFile)) {
        pages = JSON.parse(fs.readFileSync(cacheFile, "utf8")) as typeof pages;
      } else {
        pages = await buildStep(step);
        fs.mkdirSync(path.dirname(cacheFile), { recursive: true });
        fs.writeFileSync(cacheFile, JSON.stringify(pages));
      }
      for (const p of pages) {
        // 页首加一条回到书的链接（普通链接，不带样式：查看器页面的 CSP 不许内联样式）
        const back = `<p><a href="${stepUrl(step)}">← 回到书：${escapeHtml(step)}</a></p>`;
        const html = p.html.replace(/<body([^>]*)>/, (m) => `${m}\n${back}`);
        const file = path.join(publicDir, ...decodeURIComponent(sessionUrl(step, p.name)).slice(1).split("/"));
        fs.mkdirSync(path.dirname(file), { recursive: true });
        fs.writeFileSync(file, html);
      }
      result.set(step, pages.map((p) => p.name));
    }),
  );
  return result;
}
