import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadSession } from "../src/load.ts";
import { buildModel, type ViewModel } from "../src/model.ts";
import { escapeHtml, jsonForScript, renderPage } from "../src/page.ts";
import { harnessDir } from "../src/steps.ts";
import { copyFixture, fixturesDir } from "./helpers/cli.ts";

async function view(fixture: string, step: string, stepNumber: number): Promise<ViewModel> {
  const loaded = await loadSession(path.join(fixturesDir, fixture), path.join(harnessDir, step));
  return buildModel(loaded.lines, { name: loaded.name, step, stepNumber, warnings: loaded.warnings });
}

const byId = (model: ViewModel, id: string) => model.entries.find((entry) => entry.id === id);

describe("buildModel", () => {
  it("step07 的演示会话：6 条消息都在链上，最后一条被取消", async () => {
    const model = await view("step07-demo.jsonl", "step07-abort-extensions", 7);
    expect(model.counts).toMatchObject({ messages: 6, user: 2, turns: 3, aborted: 1, errors: 0, toolCalls: 1, offChain: 0 });
    expect(model.entries.every((entry) => entry.onChain)).toBe(true);
    expect((model.entries.at(-1)?.message as { stopReason?: string }).stopReason).toBe("aborted");
    // 工具调用配上了结果
    expect(byId(model, "e2")?.results).toEqual({ call_1: 2 });
    expect(byId(model, "e3")?.callEntry).toBe(1);
  });

  it("step09 的演示会话：重试过的失败离开上下文并带着分诊结论，溢出后的压缩省略了早先的消息", async () => {
    const model = await view("step09-demo.jsonl", "step09-retry-timeout", 9);
    // 场景 2：500 之后重试成功
    expect(byId(model, "e4")).toMatchObject({ onChain: true, errorClass: "retryable", off: { reason: "retried" } });
    // 溢出：失败消息离开，之前的整轮都被压缩省略，只留下正在问的这一句
    expect(byId(model, "e13")).toMatchObject({ errorClass: "overflow", off: { reason: "retried" }, compactedBefore: 9 });
    for (const id of ["e1", "e2", "e3", "e5", "e9", "e10"]) expect(byId(model, id)?.off?.reason, id).toBe("compacted");
    // 场景 4：等待重试时被取消——失败消息在等待之前就离开了上下文，所以压缩只省略了 9 条（和演示打印的一样）
    expect(byId(model, "e11")).toMatchObject({ errorClass: "retryable", off: { reason: "retry-cancelled" } });
    expect(byId(model, "e12")?.off).toBeUndefined();
    // 没被重试的失败留在链上，发请求时跳过
    expect(byId(model, "e18")).toMatchObject({ errorClass: "neither", skippedInRequest: true });
    expect(byId(model, "e18")?.off).toBeUndefined();
    expect(byId(model, "e20")?.errorClass).toBe("neither");
    // 同一个 call_1 出现在两轮里：各自配上自己那一轮的结果
    expect(byId(model, "e7")?.results).toEqual({ call_1: 7 });
    expect(byId(model, "e14")?.results).toEqual({ call_1: 14 });
  });

  it("按 step08 的规则读同一个文件：没有 回合层重试，失败消息只是发请求时跳过", async () => {
    const model = await view("step09-demo.jsonl", "step08-real-model", 8);
    expect(model.counts.offChain).toBe(0);
    expect(byId(model, "e4")).toMatchObject({ errorClass: "retryable", skippedInRequest: true });
  });

  it("分支、不认识的类型、重试：各自标出为什么不在请求里；半行尾巴和步骤的加载函数一样被跳过", async () => {
    const model = await view("hostile.jsonl", "step09-retry-timeout", 9);
    expect(model.entries.map((entry) => entry.id)).toEqual(["e1", "e2", "e3", "e4", "e5", "e6", "e7", "e8", "e9"]);
    expect(byId(model, "e3")).toMatchObject({ onChain: false, off: { reason: "branch" } });
    expect(byId(model, "e4")).toMatchObject({ onChain: true, type: "bookmark", off: { reason: "unknown-type" } });
    expect(byId(model, "e8")?.off?.reason).toBe("retried");
    expect(model.warnings).toHaveLength(2);
    expect(model.warnings[0]).toContain("不认识的条目类型");
    expect(model.warnings[1]).toContain("第 10 行不完整");
  });
});

describe("renderPage", () => {
  it("嵌入的 JSON 里没有一个 <，解析回来与原数据相同", async () => {
    const model = await view("hostile.jsonl", "step09-retry-timeout", 9);
    const json = jsonForScript(model);
    expect(json).not.toContain("<");
    expect(json).not.toMatch(/[\u2028\u2029]/);
    expect(JSON.parse(json)).toEqual(JSON.parse(JSON.stringify(model)));
  });

  it("整页只有两个 <script>（数据块和本页脚本），不引用任何外部资源", async () => {
    const html = renderPage(await view("hostile.jsonl", "step09-retry-timeout", 9));
    expect(html.match(/<script/g)).toHaveLength(2);
    // 会话内容只在数据块里；除此之外，页面里没有任何网址、外链样式或外部脚本
    const markup = html.replace(/<script type="application\/json" id="session-data">[^<]*<\/script>/, "");
    expect(markup).not.toMatch(/https?:\/\/|<link|<img|<iframe|@import|url\(|<script src/i);
    expect(html).toContain(`http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'sha256-`);
  });
});

// 页面里出现外来文字的地方只有两处：<title> 里的文件名（服务端拼进 HTML，靠 escapeHtml），
// 以及数据块（靠 jsonForScript）；页面脚本再用 textContent 把数据放进 DOM（浏览器测试查）。
// Windows 的文件名里不能有 < > "，那里用一个同样要转义的名字（& 与 '）。
const HOSTILE_NAME = process.platform === "win32" ? "a&amp;b'onerror=alert(1).jsonl" : "a<img src=x onerror=alert(1)>.jsonl";

/** 去掉数据块、页面脚本与样式之后剩下的标签名：只许是页面自己的那几个 */
function tagsOutsideData(html: string): string[] {
  const markup = html
    .replace(/<script type="application\/json" id="session-data">[^<]*<\/script>/, "")
    .replace(/<script>[\s\S]*?<\/script>/, "")
    .replace(/<style>[\s\S]*?<\/style>/, "");
  return [...markup.matchAll(/<\/?([a-zA-Z!][\w-]*)/g)].map((m) => (m[1] as string).toLowerCase());
}

describe("转义：外来文字进 HTML 的每一处", () => {
  it("escapeHtml 转义 & < > \" ' 五个字符，别的原样保留", () => {
    expect(escapeHtml(`a&b<c>d"e'f 中文`)).toBe("a&#38;b&#60;c&#62;d&#34;e&#39;f 中文");
    expect(escapeHtml("&#60;")).toBe("&#38;#60;"); // 已经像实体的文字也再转一次：显示出来和文件名一字不差
  });

  it(`文件名 ${HOSTILE_NAME} 进 <title> 时被转义；页面里除了自己的标签没有别的`, async () => {
    const file = copyFixture("step07-demo.jsonl", HOSTILE_NAME);
    const loaded = await loadSession(file, path.join(harnessDir, "step07-abort-extensions"));
    expect(loaded.name).toBe(HOSTILE_NAME);
    const html = renderPage(buildModel(loaded.lines, { name: loaded.name, step: "step07-abort-extensions", stepNumber: 7, warnings: loaded.warnings }));
    expect(html).toContain(`<title>会话 ${escapeHtml(HOSTILE_NAME)}</title>`);
    // 数据块里的 JSON 可以原样带着 & 与 '（jsonForScript 只需转义 <）：除数据块外，页面里不许出现原名
    expect(html.replace(/<script type="application\/json" id="session-data">[^<]*<\/script>/, "")).not.toContain(HOSTILE_NAME);
    expect(html.match(/<\/title>/g)).toHaveLength(1);
    expect(new Set(tagsOutsideData(html))).toEqual(new Set(["!doctype", "html", "head", "meta", "title", "body", "noscript", "main"]));
  });

  it("会话里每一个字段的外来文字都只进数据块：拼出的 HTML 里一个外来标签也没有", async () => {
    const model = await view("hostile.jsonl", "step09-retry-timeout", 9);
    const evil = '<img src=x onerror="alert(1)">&amp;</title></script>';
    // 名字、步骤、警告都换成恶意文字：它们是除消息以外仅有的字符串字段
    const html = renderPage({ ...model, name: evil, step: evil, warnings: [evil, ...model.warnings] });
    expect(html).toContain(`<title>会话 ${escapeHtml(evil)}</title>`);
    expect(tagsOutsideData(html).filter((t) => t === "img")).toEqual([]);
    expect(html.match(/<\/title>/g)).toHaveLength(1);
    expect(html.match(/<\/script>/g)).toHaveLength(2);
  });
});
