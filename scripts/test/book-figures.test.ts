// 书站的图（issue 32 与 issue 31 第 13 类）：找学习者的浏览器；没有可用的浏览器时构建照样完成、图交给读者的浏览器画；
// 图的语法错了，失败信息说出是哪一章、第几行的哪一块；端口说错时打印学习者给的那个值。
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { browserCandidates, findBrowser, firstLine } from "../../book/scripts/lib/browser.ts";
import { BookError, describeFailure } from "../../book/scripts/lib/book-error.ts";
import { drawInBrowser, renderFigures, withMinFont, type Drawn, type FigureDeps, type FigureSource } from "../../book/scripts/lib/mermaid.ts";
import { readableWidth, svgSize } from "../../book/scripts/lib/mermaid-config.ts";
import { parsePort } from "../../book/scripts/lib/port.ts";
import { figureHtml } from "../../book/scripts/lib/transform.ts";

const SVG = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 120.5 40"><text>A</text></svg>';

describe("找学习者的浏览器", () => {
  it("CHROMIUM_PATH 设了就只用它；它不存在时说出它指向哪里，不去找别的", () => {
    expect(findBrowser("linux", { CHROMIUM_PATH: "/opt/x/chrome" }, (f) => f === "/opt/x/chrome")).toEqual({ name: "CHROMIUM_PATH", path: "/opt/x/chrome" });
    const r = findBrowser("linux", { CHROMIUM_PATH: "/opt/x/chrome" }, (f) => f === "/usr/bin/chromium");
    expect(r).toEqual({ missing: expect.stringContaining("/opt/x/chrome") });
  });

  it("Windows：在 LOCALAPPDATA、Program Files、Program Files (x86) 下找 Chrome、Edge、Chromium", () => {
    const env = { LOCALAPPDATA: "C:\\Users\\张三\\AppData\\Local", PROGRAMFILES: "C:\\Program Files", "PROGRAMFILES(X86)": "C:\\Program Files (x86)" };
    const paths = browserCandidates("win32", env).map((c) => c.path);
    expect(paths).toContain("C:\\Program Files\\Google\\Chrome\\Application\\chrome.exe");
    expect(paths).toContain("C:\\Users\\张三\\AppData\\Local\\Google\\Chrome\\Application\\chrome.exe");
    expect(paths).toContain("C:\\Program Files (x86)\\Microsoft\\Edge\\Application\\msedge.exe");
    // 只装了 Edge 的 Windows（Windows 10/11 自带）
    const edge = "C:\\Program Files (x86)\\Microsoft\\Edge\\Application\\msedge.exe";
    expect(findBrowser("win32", env, (f) => f === edge)).toEqual({ name: "Microsoft Edge", path: edge });
  });

  it("macOS：/Applications 与 ~/Applications 里的 Chrome、Edge、Chromium", () => {
    const paths = browserCandidates("darwin", {}, "/Users/zhang").map((c) => c.path);
    expect(paths).toContain("/Applications/Google Chrome.app/Contents/MacOS/Google Chrome");
    expect(paths).toContain("/Users/zhang/Applications/Microsoft Edge.app/Contents/MacOS/Microsoft Edge");
    expect(paths).toContain("/Applications/Chromium.app/Contents/MacOS/Chromium");
  });

  it("Linux：不只 /usr/bin/chromium，也找 Google Chrome、snap 的 Chromium、Edge", () => {
    for (const p of ["/opt/google/chrome/chrome", "/snap/bin/chromium", "/opt/microsoft/msedge/msedge"]) {
      expect(findBrowser("linux", {}, (f) => f === p)).toMatchObject({ path: p });
    }
    expect(findBrowser("linux", {}, () => false)).toEqual({ missing: expect.stringContaining("CHROMIUM_PATH") });
  });

  it("出错信息只留第一行（不带 Playwright 的 Call log 与调用栈）", () => {
    const e = new Error("browserType.launchPersistentContext: Browser closed.\nCall log:\n  - [pid=1] exception while trying to kill process: Error: kill ESRCH\n    at foo (x.js:1:1)");
    expect(firstLine(e)).toBe("browserType.launchPersistentContext: Browser closed.");
    const hostile = { get message(): string { throw new Error("x"); }, toString(): string { throw new Error("y"); } };
    expect(firstLine(hostile)).toBe("（无法显示的错误）");
  });
});

describe("构建时画不了图：构建照样完成", () => {
  let tmp: string;
  let publicDir: string;
  let mermaidJs: string;
  const sources: FigureSource[] = [
    { code: "flowchart LR\n  A-->B", file: "docs/8.1-a.md", line: 12, n: 1 },
    { code: "sequenceDiagram\n  A->>B: {{ hi }} <b>", file: "docs/8.2-b.md", line: 40, n: 1 },
  ];
  const deps = (draw: FigureDeps["draw"]): FigureDeps => ({ mermaid: () => ({ js: mermaidJs, version: "12.3.0" }), draw, cacheDir: path.join(tmp, "cache") });

  beforeEach(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), "book-figures-"));
    publicDir = path.join(tmp, "public");
    mermaidJs = path.join(tmp, "mermaid.min.js");
    fs.writeFileSync(mermaidJs, "/* mermaid */");
  });
  afterEach(() => {
    vi.unstubAllEnvs();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it("没有可用的浏览器：每张图交给读者的浏览器画，书站带上自己的 Mermaid，并且说一行", async () => {
    const log: string[] = [];
    const { figures, stats } = await renderFigures(sources, publicDir, (l) => log.push(l), deps(async () => "没有找到 Chrome、Edge 或 Chromium"));
    expect([...figures.values()]).toEqual([{ live: true }, { live: true }]);
    expect(stats).toEqual({ rendered: 0, cached: 0, live: 2 });
    expect(fs.readFileSync(path.join(publicDir, "mermaid", "mermaid.min.js"), "utf8")).toBe("/* mermaid */");
    expect(log).toHaveLength(1);
    expect(log[0]).toContain("2 张图改由读者的浏览器用书站自带的 Mermaid 画");
  });

  it("画好的图进缓存；下一次构建不再开浏览器，也不带 Mermaid", async () => {
    const draw = vi.fn(async (codes: string[]): Promise<Drawn[]> => codes.map(() => ({ svg: SVG })));
    const first = await renderFigures(sources, publicDir, () => {}, deps(draw));
    expect(first.stats).toEqual({ rendered: 2, cached: 0, live: 0 });
    expect([...first.figures.values()][0]).toMatchObject({ width: 121, height: 40 });
    fs.rmSync(publicDir, { recursive: true });
    const second = await renderFigures(sources, publicDir, () => {}, deps(draw));
    expect(draw).toHaveBeenCalledTimes(1);
    expect(second.stats).toEqual({ rendered: 0, cached: 2, live: 0 });
    expect(fs.existsSync(path.join(publicDir, "mermaid"))).toBe(false);
  });

  it("图的语法错了：构建失败，说出是哪一章第几行的哪一块，没有调用栈", async () => {
    const draw = async (codes: string[]): Promise<Drawn[]> => codes.map((c) => (c.startsWith("sequence") ? { syntax: "Parse error on line 2:\n...A->>B\n-----^" } : { svg: SVG }));
    const error = await renderFigures(sources, publicDir, () => {}, deps(draw)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BookError);
    const text = describeFailure(error);
    expect(text).toContain("docs/8.2-b.md 第 40 行的 mermaid 块（本章第 1 张图）有语法错误：Parse error on line 2:");
    expect(text).not.toContain("8.1-a.md");
    expect(text).not.toMatch(/\n\s+at /);
  });

  it("一张图画到一半出了别的错：只有它交给读者的浏览器，说出是哪一章的哪一块", async () => {
    const log: string[] = [];
    const draw = async (codes: string[]): Promise<Drawn[]> => codes.map((c) => (c.startsWith("sequence") ? { error: "Could not find a suitable point" } : { svg: SVG }));
    const { figures, stats } = await renderFigures(sources, publicDir, (l) => log.push(l), deps(draw));
    expect(stats).toEqual({ rendered: 1, cached: 0, live: 1 });
    expect(figures.get(sources[1]?.code ?? "")).toEqual({ live: true });
    expect(log.join("\n")).toContain("docs/8.2-b.md 第 40 行的 mermaid 块");
  });

  if (process.platform === "win32") console.warn("[跳过] 残留的包装脚本那一项：它是 POSIX 的 sh 脚本，Windows 上没有 sh");
  it.skipIf(process.platform === "win32")("浏览器在但起不来（残留的包装脚本）：一句原因，不抛错、不带调用栈", async () => {
    const wrapper = path.join(tmp, "chromium");
    fs.writeFileSync(wrapper, "#!/bin/sh\nexec /nonexistent/lib/chromium/chromium \"$@\"\n", { mode: 0o755 });
    vi.stubEnv("CHROMIUM_PATH", wrapper);
    const reason = await drawInBrowser(["flowchart LR\n  A-->B"], () => {});
    expect(typeof reason).toBe("string");
    expect(reason).toContain(`CHROMIUM_PATH（${wrapper}）起不来`);
    expect(reason).toContain("一启动就退出了");
    expect(reason).not.toContain("\n");
  });

  // 在真的浏览器里用书站装的 Mermaid 画一对图（对的、写错的）：在 npm run book:test 的 draw 一项里（根目录没有装 Mermaid）

  it("交给读者的浏览器的图：源码以 base64 放进 data-mermaid，Markdown 与 Vue 都不会去解读它", () => {
    const code = sources[1]?.code ?? "";
    const html = figureHtml(3, { live: true }, code);
    const b64 = /data-mermaid="([^"]+)"/.exec(html)?.[1] ?? "";
    expect(Buffer.from(b64, "base64").toString("utf8")).toBe(code);
    expect(html).not.toMatch(/\{\{|<b>/);
    expect(figureHtml(1, { url: "/figures/k.svg", width: 10, height: 20 }, code)).toContain('<img src="/figures/k.svg" width="10" height="20"');
  });
});

describe("图在页面上看得清（issue 49 第 3 条）：最多缩到最小的字还有 14px，再窄就左右滑动", () => {
  it("构建时量出的最小字号记在 SVG 上，读回来；缓存的键跟着变（旧的、没有字号的 SVG 不再用）", () => {
    const marked = withMinFont(SVG, 16);
    expect(marked).toMatch(/^<svg data-min-font="16\.00" /);
    expect(svgSize(marked)).toEqual({ width: 121, height: 40, minFont: 16 });
    expect(svgSize(SVG)).toEqual({ width: 121, height: 40 });
    expect(withMinFont(SVG, Infinity)).toBe(SVG); // 没有字的图
  });

  it("8.5 的时序图（1702 宽、最小的字 14px）不缩：比页面宽时左右滑动，图下说可以滑动、可以点开看原尺寸", () => {
    const html = figureHtml(3, { url: "/figures/t.svg", width: 1702, height: 943, minFont: 14 }, "sequenceDiagram");
    expect(html).toContain('style="--min-width:1702px"');
    expect(html).toContain("左右滑动");
    expect(html).toContain("原尺寸");
    // 字号 16px 的图可以缩到 87.5%；本来就小的字，图反而放大
    expect(readableWidth(800, 16)).toBe(700);
    expect(readableWidth(800, 12)).toBe(934);
    expect(readableWidth(800, undefined)).toBeUndefined();
    // 手机上也放得下的小图：不提滑动
    const small = figureHtml(1, { url: "/figures/s.svg", width: 300, height: 100, minFont: 16 }, "flowchart LR");
    expect(small).toContain('style="--min-width:263px"');
    expect(small).not.toContain("左右滑动");
  });
});

describe("npm run book 的端口", () => {
  it("环境变量 PORT 不对时打印 PORT 的值，不是别的参数（issue 31 第 13 类）", () => {
    expect(parsePort(["--no-build"], { PORT: "abc" })).toEqual({ error: "端口不对：环境变量 PORT 的值是「abc」，要 0–65535 的整数" });
  });

  it("--port 不对时打印 --port 的值；--port 后面没有值时这样说", () => {
    expect(parsePort(["--port", "70000"], { PORT: "80" })).toEqual({ error: "端口不对：--port 的值是「70000」，要 0–65535 的整数" });
    expect(parsePort(["--port"], { PORT: "abc" })).toEqual({ error: expect.stringContaining("--port 后面要跟端口号") });
    expect(parsePort(["--port", "--no-build"], {})).toEqual({ error: expect.stringContaining("--port 后面要跟端口号") });
  });

  it("Number() 认、但不是端口的写法都不收：空串、0x50、1e3、带空格", () => {
    for (const v of ["", " 80", "0x50", "1e3", "80.0", "-1"]) expect(parsePort(["--port", v], {})).toHaveProperty("error");
    expect(parsePort([], {})).toEqual({ port: 4173 });
    expect(parsePort([], { PORT: "" })).toEqual({ port: 4173 });
    expect(parsePort(["--port", "4180"], { PORT: "abc" })).toEqual({ port: 4180 });
  });
});
