// Mermaid 的配置：构建时在浏览器里画图与读者的浏览器里画图（找不到可用的浏览器时）用同一份，两边画出的图一样。
// 标签用 SVG 文本（不用 foreignObject 里的 HTML）：图作为 <img> 显示时最稳
export const MERMAID_CONFIG = {
  startOnLoad: false,
  theme: "neutral",
  securityLevel: "strict",
  htmlLabels: false,
  flowchart: { htmlLabels: false, useMaxWidth: false },
  sequence: { useMaxWidth: false },
  state: { useMaxWidth: false },
  fontFamily: '"WenQuanYi Micro Hei", "Noto Sans CJK SC", "PingFang SC", "Microsoft YaHei", sans-serif',
};

/** 书站里 Mermaid 脚本的网址（书站自带的一份，不从网上取） */
export const MERMAID_SCRIPT_URL = "/mermaid/mermaid.min.js";

/** SVG 的尺寸（取 viewBox）与构建时量出的最小字号（data-min-font，按原尺寸显示时的像素；没有字的图没有） */
export function svgSize(svg: string): { width: number; height: number; minFont?: number } {
  const vb = /viewBox="\s*[-\d.]+[\s,]+[-\d.]+[\s,]+([\d.]+)[\s,]+([\d.]+)\s*"/.exec(svg);
  const minFont = Number(/^<svg\b[^>]*?\sdata-min-font="([\d.]+)"/.exec(svg)?.[1]);
  return { width: Math.ceil(Number(vb?.[1] ?? 800)), height: Math.ceil(Number(vb?.[2] ?? 400)), ...(minFont > 0 ? { minFont } : {}) };
}

/**
 * 正文的字是 16px；图里的字缩到它的 80% 以下就看不清了（issue 49：8.5 的时序图在 1280 宽的页面上缩到约 6px）。
 * 所以一张图最多缩到它最小的字还有 14px（正文的 87.5%，离 80% 留点余地）；页面比这还窄时，图保持这个宽度、左右滑动。
 */
export const READABLE_TEXT_PX = 14;

/** 图最窄能缩到多宽（像素）：最小的字不小于 READABLE_TEXT_PX。字本来就小于它的图会放大 */
export function readableWidth(width: number, minFont: number | undefined): number | undefined {
  return minFont === undefined || !(minFont > 0) ? undefined : Math.ceil((width * READABLE_TEXT_PX) / minFont);
}

/** 比这宽的图在手机上（390px 宽的屏幕，正文约 350px）放不下：图下的说明提一句左右滑动 */
export const PHONE_COLUMN_PX = 340;

/** 图下的一行说明 */
export function figureNote(minWidth: number | undefined): string {
  return minWidth !== undefined && minWidth > PHONE_COLUMN_PX ? "点图在新标签页里看原尺寸；比页面宽时左右滑动看全图" : "点图在新标签页里看原尺寸";
}

/**
 * 一张 SVG（已经放进页面、按原尺寸摆着）上最小的字：每个直接带着文字的 text / tspan，字号乘上它所在位置相对整张图的缩放。
 * 在浏览器里运行（构建时画图的页面、读者的浏览器、书站的浏览器测试，前两处用 toString() 注入），
 * 所以不引用外面的任何东西，里面也不定义具名函数（tsx 会给具名函数包上页面里没有的 __name）。没有字时是 Infinity。
 */
export function smallestTextPx(svg: SVGSVGElement): number {
  const root = svg.getScreenCTM();
  const rootScale = root ? Math.hypot(root.a, root.b) : 1;
  let smallest = Infinity;
  for (const el of Array.from(svg.querySelectorAll<SVGGraphicsElement>("text, tspan"))) {
    if (!Array.from(el.childNodes).some((n) => n.nodeType === 3 && (n.textContent ?? "").trim() !== "")) continue;
    const size = parseFloat(getComputedStyle(el).fontSize);
    const m = el.getScreenCTM();
    const scale = m && rootScale > 0 ? Math.hypot(m.a, m.b) / rootScale : 1;
    if (size > 0) smallest = Math.min(smallest, size * scale);
  }
  return smallest;
}
