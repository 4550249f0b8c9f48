// 构建时把 Mermaid 画成 SVG：在学习者自己的浏览器里（lib/browser.ts 找 Chrome、Edge 或 Chromium）加载书站自带的 mermaid.min.js。
// 结果按「内容 + mermaid 版本 + 配置」的哈希缓存在 .cache/mermaid/，内容没变就不再开浏览器。
// 没有可用的浏览器（没装、起不来、画到一半出错）：构建照样完成，这些图改由读者的浏览器用书站自带的 Mermaid 画，仍然离线。
// 图的语法错了才让构建失败，并说出是哪一章、第几行的哪一块。
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { findBrowser, firstLine, launchBrowser, launchFailure } from "./browser.ts";
import { BookError } from "./book-error.ts";
import { MERMAID_CONFIG, MERMAID_SCRIPT_URL, smallestTextPx, svgSize } from "./mermaid-config.ts";
import { BOOK_DIR, CACHE_DIR } from "./paths.ts";
import type { Figure } from "./transform.ts";

/** 一个 ```mermaid 块在哪里 */
export interface FigureSource {
  code: string;
  /** 仓库里的路径，例如 docs/8.5-abort-extensions.md */
  file: string;
  /** 开头那行 ```mermaid 的行号 */
  line: number;
  /** 本章的第几张图 */
  n: number;
}

/** 在浏览器里画一张图的结果：syntax 是 Mermaid 认为源码写错了，error 是别的原因没画出来 */
export type Drawn = { svg: string } | { syntax: string } | { error: string };

export interface FigureDeps {
  /** 书站自带的 Mermaid：脚本文件与版本 */
  mermaid(): { js: string; version: string };
  /** 画这些图；画不了（没有浏览器、起不来、中途出错）时返回一句原因 */
  draw(codes: string[], log: (line: string) => void): Promise<Drawn[] | string>;
  /** 画好的图缓存在这里 */
  cacheDir: string;
}

// 同时渲染的页面数
const PAGES = 2;
// 在浏览器里画全部图的期限（机器很忙时 21 张图约半分钟）
const DRAW_DEADLINE_S = 300;

/** 缓存里的 SVG 是怎样处理过的：变了（例如加上 data-min-font），旧的缓存就不再用 */
const FIGURE_FORMAT = "min-font-1";

export function figureKey(code: string, version: string): string {
  return crypto.createHash("sha256").update(`${version}\0${FIGURE_FORMAT}\0${JSON.stringify(MERMAID_CONFIG)}\0${code}`).digest("hex").slice(0, 20);
}

/** 在 SVG 的根元素上记下按原尺寸显示时最小的字号（页面据此决定图最多缩到多窄，见 mermaid-config.ts 的 readableWidth） */
export function withMinFont(svg: string, minFont: number): string {
  return Number.isFinite(minFont) && minFont > 0 ? svg.replace(/^<svg\b/, `<svg data-min-font="${minFont.toFixed(2)}"`) : svg;
}

function cached(cacheDir: string, key: string): string | undefined {
  const file = path.join(cacheDir, "mermaid", `${key}.svg`);
  return fs.existsSync(file) ? fs.readFileSync(file, "utf8") : undefined;
}

export interface RenderStats {
  rendered: number;
  cached: number;
  /** 留给读者的浏览器去画的张数 */
  live: number;
}

/** 一个 ```mermaid 块的位置，给人看 */
export function whereIs(s: FigureSource): string {
  return `${s.file} 第 ${s.line} 行的 mermaid 块（本章第 ${s.n} 张图）`;
}

/** 画（或从缓存取）每一段 Mermaid：画好的写进 public/figures/；画不了的交给读者的浏览器。返回 代码 → 图 */
export async function renderFigures(
  sources: FigureSource[],
  publicDir: string,
  log: (line: string) => void = () => {},
  deps: FigureDeps = defaultDeps,
): Promise<{ figures: Map<string, Figure>; stats: RenderStats }> {
  const { js, version } = deps.mermaid();
  const cacheDir = deps.cacheDir;
  const unique = [...new Set(sources.map((s) => s.code))];
  const missing = unique.filter((c) => cached(cacheDir, figureKey(c, version)) === undefined);
  if (missing.length > 0) {
    const drawn = await deps.draw(missing, log);
    if (typeof drawn === "string") {
      log(`画图：${drawn}——${missing.length} 张图改由读者的浏览器用书站自带的 Mermaid 画（离线，不访问网络）`);
    } else {
      const wrong: string[] = [];
      for (const [i, r] of drawn.entries()) {
        const code = missing[i] ?? "";
        if ("svg" in r) {
          fs.mkdirSync(path.join(cacheDir, "mermaid"), { recursive: true });
          fs.writeFileSync(path.join(cacheDir, "mermaid", `${figureKey(code, version)}.svg`), r.svg);
        } else if ("syntax" in r) {
          for (const s of sources.filter((x) => x.code === code)) wrong.push(`${whereIs(s)}有语法错误：${firstLine(r.syntax)}`);
        } else {
          for (const s of sources.filter((x) => x.code === code)) log(`画图：${whereIs(s)}在构建时没画出来（${firstLine(r.error)}），改由读者的浏览器画`);
        }
      }
      if (wrong.length > 0) throw new BookError(`Mermaid 图有错，书站没有构建：\n  ${wrong.join("\n  ")}`);
    }
  }
  const figures = new Map<string, Figure>();
  let live = 0;
  fs.mkdirSync(path.join(publicDir, "figures"), { recursive: true });
  for (const code of unique) {
    const key = figureKey(code, version);
    const svg = cached(cacheDir, key);
    if (svg === undefined) {
      figures.set(code, { live: true });
      live++;
      continue;
    }
    fs.writeFileSync(path.join(publicDir, "figures", `${key}.svg`), svg);
    figures.set(code, { url: `/figures/${key}.svg`, ...svgSize(svg) });
  }
  if (live > 0) {
    // 读者的浏览器要画图：书站带上自己的一份 Mermaid（只有这时才带，约 5 MB）
    const to = path.join(publicDir, ...MERMAID_SCRIPT_URL.split("/").filter(Boolean));
    fs.mkdirSync(path.dirname(to), { recursive: true });
    fs.copyFileSync(js, to);
  }
  return { figures, stats: { rendered: unique.length - live - (unique.length - missing.length), cached: unique.length - missing.length, live } };
}

const defaultDeps: FigureDeps = {
  mermaid() {
    const require = createRequire(path.join(BOOK_DIR, "package.json"));
    const js = require.resolve("mermaid/dist/mermaid.min.js");
    const version = (JSON.parse(fs.readFileSync(require.resolve("mermaid/package.json"), "utf8")) as { version: string }).version;
    return { js, version };
  },
  draw: drawInBrowser,
  cacheDir: CACHE_DIR,
};

/** 在学习者的浏览器里画：几张图分给几个页面同时画（每个页面是一个渲染进程） */
export async function drawInBrowser(codes: string[], log: (line: string) => void): Promise<Drawn[] | string> {
  const found = findBrowser();
  if ("missing" in found) return found.missing;
  let browser;
  try {
    browser = await launchBrowser(found);
  } catch (error) {
    return `${found.name}（${found.path}）起不来：${launchFailure(error)}`;
  }
  log(`画图用的浏览器：${found.name}（${found.path}）`);
  try {
    const js = defaultDeps.mermaid().js;
    const lanes = Math.min(PAGES, codes.length);
    const results = new Array<Drawn>(codes.length);
    let timer: NodeJS.Timeout | undefined;
    // 浏览器卡住时不让构建一直等：过了期限就交给读者的浏览器画
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${DRAW_DEADLINE_S} 秒还没画完`)), DRAW_DEADLINE_S * 1000);
    });
    const work = Promise.all(
      Array.from({ length: lanes }, async (_, lane) => {
        const mine = codes.map((code, i) => ({ code, i })).filter(({ i }) => i % lanes === lane);
        const page = await browser.context.newPage();
        await page.setContent("<!doctype html><html><body></body></html>");
        await page.addScriptTag({ path: js });
        // 量最小字号的函数（与读者的浏览器、浏览器测试用的是同一个）
        await page.addScriptTag({ content: `globalThis.smallestTextPx = ${smallestTextPx.toString()};` });
        const out = await page.evaluate(
          async ({ list, config }) => {
            type M = { initialize(c: unknown): void; parse(code: string): Promise<unknown>; render(id: string, code: string): Promise<{ svg: string }> };
            const m = (globalThis as unknown as { mermaid: M }).mermaid;
            m.initialize(config);
            // 这里不定义具名函数：tsx 会给它们包上页面里没有的 __name(…)
            const done: Array<{ svg: string; minFont: number } | { syntax: string } | { error: string }> = [];
            for (const { code, i } of list) {
              try {
                await m.parse(code);
              } catch (error) {
                done.push({ syntax: String((error as Error)?.message ?? error) });
                continue;
              }
              try {
                const { svg } = await m.render(`fig${i}`, code);
                // 按原尺寸放进页面，量最小的字
                const holder = document.createElement("div");
                holder.innerHTML = svg;
                document.body.append(holder);
                const el = holder.querySelector("svg") as SVGSVGElement;
                const box = el.viewBox.baseVal;
                el.setAttribute("width", String(box.width));
                el.setAttribute("height", String(box.height));
                el.style.maxWidth = "none";
                const measure = (globalThis as unknown as { smallestTextPx(svg: SVGSVGElement): number }).smallestTextPx;
                done.push({ svg, minFont: measure(el) });
                holder.remove();
              } catch (error) {
                done.push({ error: String((error as Error)?.message ?? error) });
              }
            }
            return done;
          },
          { list: mine, config: MERMAID_CONFIG },
        );
        for (const [k, r] of out.entries()) results[mine[k]?.i ?? 0] = "svg" in r ? { svg: withMinFont(r.svg, r.minFont) } : r;
        await page.close();
      }),
    );
    work.catch(() => {});
    try {
      await Promise.race([work, deadline]);
    } finally {
      clearTimeout(timer);
    }
    return results;
  } catch (error) {
    return `在 ${found.name} 里画图时出错：${firstLine(error)}`;
  } finally {
    await browser.close();
  }
}
