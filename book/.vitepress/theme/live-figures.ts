// 构建时没能画的图（没有可用的浏览器）：在读者的浏览器里用书站自带的 Mermaid 画，仍然离线。
// 页面里这样的图是 <figure data-mermaid="源码的 base64">；画好后换成与构建时一样的 <a><img></a>，点开看原尺寸。
import { withBase } from "vitepress";
import { figureNote, MERMAID_CONFIG, MERMAID_SCRIPT_URL, readableWidth, smallestTextPx, svgSize } from "../../scripts/lib/mermaid-config";

interface Mermaid {
  initialize(config: unknown): void;
  render(id: string, code: string): Promise<{ svg: string }>;
}

let loading: Promise<Mermaid> | undefined;
let seq = 0;

/** 只在页面上真有要画的图时才下载 Mermaid（约 5 MB，来自本站） */
function loadMermaid(): Promise<Mermaid> {
  loading ??= new Promise<Mermaid>((resolve, reject) => {
    const script = document.createElement("script");
    script.src = withBase(MERMAID_SCRIPT_URL);
    script.onload = () => {
      const m = (window as unknown as { mermaid: Mermaid }).mermaid;
      m.initialize(MERMAID_CONFIG);
      resolve(m);
    };
    script.onerror = () => {
      loading = undefined;
      reject(new Error(`没能载入 ${MERMAID_SCRIPT_URL}`));
    };
    document.head.append(script);
  });
  return loading;
}

function decode(base64: string): string {
  return new TextDecoder().decode(Uint8Array.from(atob(base64), (c) => c.charCodeAt(0)));
}

/** 与构建时一样：把画好的 SVG 按原尺寸放进页面（看不见），量最小的字 */
function measureText(svg: string): number | undefined {
  const holder = document.createElement("div");
  holder.style.cssText = "position:absolute;left:-100000px;top:0;visibility:hidden";
  holder.innerHTML = svg;
  document.body.append(holder);
  try {
    const el = holder.querySelector("svg");
    if (el === null) return undefined;
    el.setAttribute("width", String(el.viewBox.baseVal.width));
    el.setAttribute("height", String(el.viewBox.baseVal.height));
    el.style.maxWidth = "none";
    const px = smallestTextPx(el);
    return Number.isFinite(px) ? px : undefined;
  } finally {
    holder.remove();
  }
}

function fail(figure: HTMLElement, why: string): void {
  figure.dataset.drawn = "error";
  figure.textContent = `这张图没能画出来：${why}`;
}

/** 画出页面上所有还没画的图（一张一张画：Mermaid 不能同时画两张） */
export async function drawLiveFigures(): Promise<void> {
  const list = [...document.querySelectorAll<HTMLElement>("figure.mermaid-figure[data-mermaid]:not([data-drawn])")];
  if (list.length === 0) return;
  for (const f of list) f.dataset.drawn = "pending";
  let mermaid: Mermaid;
  try {
    mermaid = await loadMermaid();
  } catch (error) {
    for (const f of list) fail(f, (error as Error).message);
    return;
  }
  for (const figure of list) {
    try {
      const { svg } = await mermaid.render(`live-figure-${++seq}`, decode(figure.dataset.mermaid ?? ""));
      const url = URL.createObjectURL(new Blob([svg], { type: "image/svg+xml" }));
      const { width, height } = svgSize(svg);
      const minWidth = readableWidth(width, measureText(svg));
      const link = document.createElement("a");
      link.href = url;
      link.target = "_blank";
      link.title = "点击在新标签页里看原尺寸";
      const img = document.createElement("img");
      img.src = url;
      img.width = width;
      img.height = height;
      img.alt = "图（Mermaid）";
      if (minWidth !== undefined) img.style.setProperty("--min-width", `${minWidth}px`);
      link.append(img);
      const note = document.createElement("figcaption");
      note.className = "figure-note";
      note.textContent = figureNote(minWidth);
      figure.replaceChildren(link, note);
      figure.dataset.drawn = "ok";
    } catch (error) {
      fail(figure, String((error as Error)?.message ?? error));
    }
  }
}

/** 页面换了（VitePress 在浏览器里切换页面不整页刷新）就再找一遍要画的图 */
export function watchLiveFigures(): void {
  let queued = false;
  const schedule = () => {
    if (queued) return;
    queued = true;
    requestAnimationFrame(() => {
      queued = false;
      void drawLiveFigures();
    });
  };
  new MutationObserver(schedule).observe(document.body, { childList: true, subtree: true });
  schedule();
}
