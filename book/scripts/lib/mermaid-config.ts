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

/** SVG 的尺寸（取 viewBox） */
export function svgSize(svg: string): { width: number; height: number } {
  const vb = /viewBox="\s*[-\d.]+[\s,]+[-\d.]+[\s,]+([\d.]+)[\s,]+([\d.]+)\s*"/.exec(svg);
  return { width: Math.ceil(Number(vb?.[1] ?? 800)), height: Math.ceil(Number(vb?.[2] ?? 400)) };
}
