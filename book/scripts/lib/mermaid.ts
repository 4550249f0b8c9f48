// 构建时把 Mermaid 渲染成 SVG：用系统的 Chromium（与会话查看器的测试同一个启动函数，从不下载浏览器）加载 npm 包里的 mermaid.min.js。
// 结果按「内容 + mermaid 版本 + 配置」的哈希缓存在 .cache/mermaid/，内容没变就不再开浏览器。
// 读者看到的是一张现成的图：没有「加载中」，语法错了构建直接失败，不会出现报错框。
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { chromiumMissing, launchChromium } from "../../../labs/session-viewer/tools/chromium.ts";
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
// 同时渲染的页面数
const PAGES = 2;

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
    const why = chromiumMissing();
    if (why !== undefined) throw new Error(`有 ${missing.length} 张 Mermaid 图要在构建时渲染，但${why}`);
    // 几张图分给几个页面同时渲染（每个页面是一个渲染进程）；图的 id 仍按它在待渲染列表里的序号
    const browser = await launchChromium();
    try {
      const lanes = Math.min(PAGES, missing.length);
      const results = new Array<{ svg?: string; error?: string }>(missing.length);
      await Promise.all(
        Array.from({ length: lanes }, async (_, lane) => {
          const mine = missing.map((code, i) => ({ code, i })).filter(({ i }) => i % lanes === lane);
          const page = await browser.context.newPage();
          await page.setContent("<!doctype html><html><body></body></html>");
          await page.addScriptTag({ path: MERMAID_JS });
          const out = await page.evaluate(
            async ({ list, config }) => {
              const m = (globalThis as unknown as { mermaid: { initialize(c: unknown): void; render(id: string, code: string): Promise<{ svg: string }> } }).mermaid;
              m.initialize(config);
              const done: Array<{ svg?: string; error?: string }> = [];
              for (const { code, i } of list) {
                try {
                  done.push({ svg: (await m.render(`fig${i}`, code)).svg });
                } catch (error) {
                  done.push({ error: String((error as Error)?.message ?? error) });
                }
              }
              return done;
            },
            { list: mine, config: CONFIG },
          );
          for (const [k, r] of out.entries()) results[mine[k]?.i ?? 0] = r;
          await page.close();
        }),
      );
      for (const [i, r] of results.entries()) {
        const code = missing[i] ?? "";
        if (r.svg === undefined) throw new Error(`Mermaid 图渲染失败：${r.error}\n图的源码开头：${code.split("\n").slice(0, 3).join(" / ")}`);
        fs.mkdirSync(path.join(CACHE_DIR, "mermaid"), { recursive: true });
        fs.writeFileSync(path.join(CACHE_DIR, "mermaid", `${figureKey(code)}.svg`), r.svg);
      }
    } finally {
      await browser.close();
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
