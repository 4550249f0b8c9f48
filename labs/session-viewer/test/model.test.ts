import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadSession } from "../src/load.ts";
import { buildModel, type ViewModel } from "../src/model.ts";
import { jsonForScript, renderPage } from "../src/page.ts";
import { harnessDir } from "../src/steps.ts";
import { fixturesDir } from "./helpers/cli.ts";

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
