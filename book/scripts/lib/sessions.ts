// 会话页面：构建时在临时目录里重新运行 step06–09 的 demo（DEMO_SESSIONS_DIR 指过去，不碰步骤目录里的 .sessions/），
// 再用会话查看器（labs/session-viewer 里 npm run view 调的那三个函数：读、建模、画）把每个会话文件画成页面。
// 四个 demo 同时跑；查看器在本进程里调用，不为每个会话再起一个 tsx 进程。
// 结果按「步骤目录里现在的文件 + 查看器 + 脚本服务器」的哈希缓存：都没变就不再跑 demo。
// 某一步的 demo 没跑通（多半是学习者改坏了这一步）：说一行，这一步没有会话页，书站的其余部分照常构建。
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { runDemo, type DemoResult } from "../../../scripts/lib/run-demo.ts";
import { walkFiles } from "../../../scripts/lib/walk-files.ts";
import { loadSession } from "../../../labs/session-viewer/src/load.ts";
import { buildModel } from "../../../labs/session-viewer/src/model.ts";
import { renderPage } from "../../../labs/session-viewer/src/page.ts";
import { CACHE_DIR, LABS_DIR, ROOT } from "./paths.ts";
import { escapeHtml, sessionUrl, stepUrl } from "./urls.ts";

/** demo 跑的是步骤目录里现在的文件（不是 git 里提交的版本）：学习者改过它，就要重跑 */
function stepHash(stepDir: string): string {
  const h = crypto.createHash("sha256");
  for (const dir of [path.join(ROOT, "labs", "session-viewer", "src"), path.join(ROOT, "labs", "scripted-provider", "src"), stepDir]) {
    for (const f of walkFiles(dir)) h.update(f).update("\0").update(fs.readFileSync(path.join(dir, ...f.split("/")))).update("\0");
    h.update("\u0001");
  }
  return h.digest("hex").slice(0, 20);
}

/** demo 自己说的最后几行：先看 stderr（没有再看 stdout），去掉调用栈、Node 的版本号和 ^ 标记，控制字符换成可见的写法 */
export function lastWords(result: Pick<DemoResult, "stdout" | "stderr">, count = 2): string[] {
  const text = result.stderr.trim() !== "" ? result.stderr : result.stdout;
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== "" && !/^at\s/.test(line) && !/^Node\.js v\d/.test(line) && !/^\^+$/.test(line))
    .slice(-count)
    .map((line) => {
      const visible = line.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
      return visible.length > 160 ? `${visible.slice(0, 160)}…` : visible;
    });
}

/** 一步的 demo 没跑通时给人看的一行：哪一步、怎么结束的、demo 最后说了什么、该怎么办 */
export function demoFailureLine(step: string, result: DemoResult): string {
  const how =
    result.spawnError !== undefined ? `没能启动：${result.spawnError}`
    : result.timedOut ? "超时，被结束"
    : result.exitCode === null ? `被信号 ${result.signal ?? "？"} 结束`
    : `退出码 ${result.exitCode}`;
  const words = lastWords(result);
  const said = words.length > 0 ? `，最后几行：${words.join(" ⏎ ")}` : "";
  return (
    `会话页：${step} 的 demo 没有跑通（${how}）${said}。这一步没有会话页，书站的其余部分照常构建。` +
    `看 demo 的完整输出：npm run demo -- ${Number(step.slice(4, 6))}；想用没改动过的步骤构建书站：git stash，构建完再 git stash pop`
  );
}

type StepPages = { pages: Array<{ name: string; html: string }> } | { failed: string };

/** 一步的会话页面：返回会话名（不带 .jsonl）与 HTML；demo 没跑通时返回那一行说明 */
async function buildStep(step: string, stepDir: string): Promise<StepPages> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `book-sessions-${step.slice(0, 6)}-`));
  try {
    process.env.DEMO_SESSIONS_DIR = dir; // runDemo 在调用时同步复制环境变量
    const demo = runDemo(stepDir);
    delete process.env.DEMO_SESSIONS_DIR;
    const result = await demo;
    if (result.exitCode !== 0) return { failed: demoFailureLine(step, result) };
    const files = fs.readdirSync(dir).filter((f) => f.endsWith(".jsonl")).sort();
    const pages: Array<{ name: string; html: string }> = [];
    for (const f of files) {
      // 与 npm run view -- <文件> --step NN 相同：用这一步自己的加载函数读，再建模、画页面
      const loaded = await loadSession(path.join(dir, f), stepDir);
      const model = buildModel(loaded.lines, { name: loaded.name, step, stepNumber: Number(step.slice(4, 6)), warnings: loaded.warnings });
      pages.push({ name: f.replace(/\.jsonl$/, ""), html: renderPage(model) });
    }
    return { pages };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export interface SessionPages {
  /** 步骤 → 会话名 */
  sessions: Map<string, string[]>;
  /** demo 没跑通的步骤 → 那一行说明（已经交给 log） */
  failed: Map<string, string>;
}

/** 写 step06 起每一步的会话页面。labsDir、cacheDir 只为测试（默认是仓库里的步骤与 book/.cache） */
export async function writeSessionPages(
  publicDir: string,
  steps: string[],
  log: (line: string) => void = () => {},
  dirs: { labsDir?: string; cacheDir?: string } = {},
): Promise<SessionPages> {
  const labsDir = dirs.labsDir ?? LABS_DIR;
  const cacheDir = dirs.cacheDir ?? CACHE_DIR;
  const withSessions = steps.filter((s) => Number(s.slice(4, 6)) >= 6);
  const result: SessionPages = { sessions: new Map(), failed: new Map() };
  await Promise.all(
    withSessions.map(async (step) => {
      const stepDir = path.join(labsDir, step);
      const cacheFile = path.join(cacheDir, "sessions", `${step}-${stepHash(stepDir)}.json`);
      let pages: Array<{ name: string; html: string }>;
      if (fs.existsSync(cacheFile)) {
        pages = JSON.parse(fs.readFileSync(cacheFile, "utf8")) as typeof pages;
      } else {
        const built = await buildStep(step, stepDir);
        if ("failed" in built) {
          // 不缓存：改好之后（或者只是机器太忙超了时）下一次构建再跑
          log(built.failed);
          result.failed.set(step, built.failed);
          result.sessions.set(step, []);
          return;
        }
        pages = built.pages;
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
      result.sessions.set(step, pages.map((p) => p.name));
    }),
  );
  return result;
}
