// 构建时把 Mermaid 渲染成 SVG：用系统的 Chromium（playwright-core 驱动，从不下载浏览器）加载 npm 包里的 mermaid.min.js。
// 结果按「内容 + mermaid 版本 + 配置」的哈希缓存在 .cache/mermaid/，内容没变就不再开浏览器。
// 读者看到的是一张现成的图：没有「加载中」，语法错了构建直接失败，不会出现报错框。
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import { BOOK_DIR, CACHE_DIR } from "./paths.ts";
import type { Figure } from "./transform.ts";

const require = createRequire(path.join(BOOK_DIR, "package.json"));
const MERMAID_JS = require.resolve("mermaid/dist/mermaid.min.js");
const MERMAID_VERSION = (JSON.parse(fs.readFileSync(require.resolve("mermaid/package.json"), "utf8")) as { version: string }).version;

// 标签用 SVG 文本（不用 foreignObject 里的 HTML）：图作为 <img> 显示时最稳
const CONFIG = {
  startOnLoad: false,
  theme: "neutral",
  securityLevel: "strict",
  htmlLabels: false,
  flowchart: { htmlLabels: false, useMaxWidth: false },
  sequence: { useMaxWidth: false },
  state: { useMaxWidth: false },
  fontFamily: '"WenQuanYi Micro Hei", "Noto Sans CJK SC", "PingFang SC", "Microsoft YaHei", sans-serif',
};

export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export function figureKey(code: string): string {
  return crypto.createHash("sha256").update(`${MERMAID_VERSION}\0${JSON.stringify(CONFIG)}\0${code}`).digest("hex").slice(0, 20);
}

function cached(key: string): string | undefined {
  const file = path.join(CACHE_DIR, "mermaid", `${key}.svg`);
  return fs.existsSync(file) ? fs.readFileSync(file, "utf8") : undefined;
}

function size(svg: string): { width: number; height: number } {
  const vb = /viewBox="\s*[-\d.]+[\s,]+[-\d.]+[\s,]+([\d.]+)[\s,]+([\d.]+)\s*"/.exec(svg);
  return { width: Math.ceil(Number(vb?.[1] ?? 800)), height: Math.ceil(Number(vb?.[2] ?? 400)) };
}

export interface RenderStats {
  rendered: number;
  cached: number;
}

/** 渲染（或从缓存取）每一段 Mermaid，把 SVG 写进 public/figures/，返回 代码 → 图 */
export async function renderFigures(codes: string[], publicDir: string): Promise<{ figures: Map<string, Figure>; stats: RenderStats }> {
  const unique = [...new Set(codes)];
  const missing = unique.filter((c) => cached(figureKey(c)) === undefined);
  if (missing.length > 0) {
    if (!fs.existsSync(CHROMIUM)) {
      throw new Error(`有 ${missing.length} 张 Mermaid 图要在构建时渲染，但找不到 Chromium（${CHROMIUM}）：apt-get install -y chromium，或用 CHROMIUM_PATH 指向已装的 Chrome`);
    }
    const { chromium } = await import("playwright-core");
    const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), "book-mermaid-"));
    const context = await chromium.launchPersistentContext(userDataDir, { executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, offline: true });
    try {
      const page = await context.newPage();
      await page.setContent("<!doctype html><html><body></body></html>");
      await page.addScriptTag({ path: MERMAID_JS });
      const results = await page.evaluate(
        async ({ list, config }) => {
          const m = (globalThis as unknown as { mermaid: { initialize(c: unknown): void; render(id: string, code: string): Promise<{ svg: string }> } }).mermaid;
          m.initialize(config);
          const out: Array<{ svg?: string; error?: string }> = [];
          for (const [i, code] of list.entries()) {
            try {
              out.push({ svg: (await m.render(`fig${i}`, code)).svg });
            } catch (error) {
              out.push({ error: String((error as Error)?.message ?? error) });
            }
          }
          return out;
        },
        { list: missing, config: CONFIG },
      );
      for (const [i, r] of results.entries()) {
        const code = missing[i] ?? "";
        if (r.svg === undefined) throw new Error(`Mermaid 图渲染失败：${r.error}\n图的源码开头：${code.split("\n").slice(0, 3).join(" / ")}`);
        fs.mkdirSync(path.join(CACHE_DIR, "mermaid"), { recursive: true });
        fs.writeFileSync(path.join(CACHE_DIR, "mermaid", `${figureKey(code)}.svg`), r.svg);
      }
    } finally {
      await context.close();
      fs.rmSync(userDataDir, { recursive: true, force: true });
    }
  }
  const figures = new Map<string, Figure>();
  fs.mkdirSync(path.join(publicDir, "figures"), { recursive: true });
  for (const code of unique) {
    const key = figureKey(code);
    const svg = cached(key) ?? "";
    fs.writeFileSync(path.join(publicDir, "figures", `${key}.svg`), svg);
    figures.set(code, { url: `/figures/${key}.svg`, ...size(svg) });
  }
  return { figures, stats: { rendered: missing.length, cached: unique.length - missing.length } };
}
