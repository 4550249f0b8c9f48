/**
 * 在真的浏览器里打开生成的页面，检查 DOM，并把截图存进 test-output/（git 忽略）。
 * 没有 Chromium 的机器上跳过，并打印原因；CI=true 时不跳过，而是失败并说出缺了什么（CI 里缺 Chromium 说明安装坏了）。
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { chromiumMissing, launchChromium, type Browser } from "../tools/chromium.ts";
import { copyFixture, runViewer, viewerDir } from "./helpers/cli.ts";

const missing = chromiumMissing();
const inCI = process.env.CI === "true";
if (missing && !inCI) console.warn(`跳过浏览器测试：${missing}`);

const outputDir = path.join(viewerDir, "test-output");
// 截图只给人看（测试从不读它们），却要花浏览器不少 CPU：设 VIEWER_TEST_SCREENSHOTS=1 才拍
const screenshots = process.env.VIEWER_TEST_SCREENSHOTS === "1";
async function screenshot(page: Page, name: string): Promise<void> {
  if (screenshots) await page.screenshot({ path: path.join(outputDir, name), fullPage: true });
}

/**
 * 生成页面并在浏览器里打开；记下弹框、页面里的报错和除页面本身以外的任何请求。
 * 页面写进会话副本所在的临时目录（测试结束时删掉），而不是共用的 test-output/：几份 npm test 同时跑时，
 * 别人正在改写的页面不会被我们读到（截图只给人看，测试不读，仍存进 test-output/）。
 */
async function openPage(browser: Browser, fixture: string, step: string, width = 900, as?: string) {
  const file = copyFixture(fixture, as);
  const out = path.join(path.dirname(file), `${path.basename(fixture, ".jsonl")}-${step}-${width}.html`);
  const result = await runViewer([file, "--step", step, "--out", out]);
  expect(result.code, result.stderr).toBe(0);
  const page: Page = await browser.context.newPage();
  await page.setViewportSize({ width, height: 900 });
  const dialogs: string[] = [];
  const errors: string[] = [];
  const requests: string[] = [];
  page.on("dialog", (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  page.on("pageerror", (error) => errors.push(error.message));
  page.on("request", (request) => requests.push(request.url()));
  const url = pathToFileURL(out).href;
  await page.goto(url);
  await page.waitForSelector("html[data-ready=true]");
  return { page, dialogs, errors, otherRequests: () => requests.filter((r) => r !== url), out };
}

// 起浏览器、生成页面都在等子进程：两核的忙碌机器上给足时间（只是上限，测试从不按时间判断对错）
describe.skipIf(missing !== undefined && !inCI)("在 Chromium 里看页面", { timeout: 120_000 }, () => {
  let browser: Browser;
  beforeAll(async () => {
    if (missing) throw new Error(`CI=true 时浏览器测试不许跳过：${missing}`);
    fs.mkdirSync(outputDir, { recursive: true });
    browser = await launchChromium();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
  }, 120_000);

  it("step07 的演示会话：6 条消息，最后一条带「已取消」标记", async () => {
    const { page, errors, otherRequests } = await openPage(browser, "step07-demo.jsonl", "07");
    expect(await page.locator(".entry").count()).toBe(6);
    expect(await page.locator(".count-messages dd").textContent()).toBe("6");
    expect(await page.locator(".entry").last().locator(".mark-aborted").textContent()).toContain("已取消");
    expect(await page.locator(".mark-aborted").count()).toBe(1);
    expect(await page.locator(".entry.off").count()).toBe(0);
    expect(await page.locator(".entry").nth(1).locator(".jump").textContent()).toBe("→ 结果：第 3 条");
    await screenshot(page, "step07-demo.png");
    expect(errors).toEqual([]);
    expect(otherRequests()).toEqual([]);
  });

  it("step09 的演示会话：重试掉的失败在链外、带着分诊结论；压缩省略的条目也在链外", async () => {
    const { page, errors } = await openPage(browser, "step09-demo.jsonl", "09");
    expect(await page.locator(".entry").count()).toBe(20);
    const retried = page.locator("#entry-3");
    expect(await retried.getAttribute("data-off-reason")).toBe("retried");
    expect(await retried.locator(".error-class").textContent()).toBe("step09 分诊：可重试");
    expect(await retried.locator(".off-reason").textContent()).toContain("历史里有，请求里没有");
    expect(await page.locator("#entry-12 .error-class").textContent()).toBe("step09 分诊：上下文溢出（压缩，不重试）");
    expect(await page.locator('.entry[data-off-reason="compacted"]').count()).toBe(9);
    expect(await page.locator(".count-off dd").textContent()).toBe("12");
    // 只看进请求的条目
    await page.getByLabel("只看进请求的条目").check();
    expect(await page.locator(".entry").count()).toBe(8);
    await screenshot(page, "step09-demo-on-chain.png");
    expect(errors).toEqual([]);
  });

  it("不可信的内容：<script>、</textarea>、onerror= 都只是文字，什么也没执行；思考默认折叠", async () => {
    // 文件名也是外来文字：<title> 与页头里都要一字不差（没转义的话 &amp; 会被浏览器读成 &）
    const name = process.platform === "win32" ? "a&amp;b'.jsonl" : "a&amp;<img src=x onerror=alert(1)>.jsonl";
    const { page, dialogs, errors, otherRequests } = await openPage(browser, "hostile.jsonl", "09", 390, name);
    expect(await page.title()).toBe(`会话 ${name}`);
    expect(await page.locator("h1").textContent()).toBe(`会话 ${name}`);
    expect(await page.locator("#entry-0 pre").textContent()).toBe("<script>alert(1)</script>");
    expect(await page.locator("#entry-1 .entry-body > pre.text").textContent()).toContain('</textarea><img src=x onerror="window.__pwned=1">');
    expect(await page.locator("img").count()).toBe(0);
    expect(await page.locator("script").count()).toBe(2);
    expect(await page.evaluate("typeof window.__pwned")).toBe("undefined");
    expect(dialogs).toEqual([]);
    // 思考块：折叠着，点开才看得见
    const thinking = page.locator("#entry-1 details.thinking");
    expect(await thinking.getAttribute("open")).toBeNull();
    expect(await thinking.locator("pre").isVisible()).toBe(false);
    await thinking.locator("summary").click();
    expect(await thinking.locator("pre").textContent()).toContain("</script><script>window.__pwned=2</script>");
    // 链外的三种原因，警告也在页头
    expect(await page.locator("#entry-2").getAttribute("data-off-reason")).toBe("branch");
    expect(await page.locator("#entry-3").getAttribute("data-off-reason")).toBe("unknown-type");
    expect(await page.locator("#entry-7").getAttribute("data-off-reason")).toBe("retried");
    expect(await page.locator(".warnings li").count()).toBe(2);
    // 手机宽度：没有横向滚动条
    expect(await page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")).toBe(true);
    await screenshot(page, "hostile-phone.png");
    expect(errors).toEqual([]);
    expect(otherRequests()).toEqual([]);
  });

  it("很长的会话：只画当前一页，长文字先折起来，翻页能用", async () => {
    const lines: string[] = [];
    let parent: string | null = null;
    for (let i = 1; i <= 1000; i++) {
      const id = `e${i}`;
      const message =
        i % 2 === 1
          ? { role: "user", content: `第 ${i} 条 ` + "很长的话".repeat(2000) }
          : { role: "assistant", content: [{ type: "text", text: `回答 ${i}` }], stopReason: "stop" };
      lines.push(JSON.stringify({ type: "message", id, parentId: parent, message }));
      parent = id;
    }
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "viewer-long-"));
    onTestFinished(() => fs.rmSync(dir, { recursive: true, force: true, maxRetries: 10 }));
    const fixture = path.join(dir, "long.jsonl");
    fs.writeFileSync(fixture, lines.join("\n") + "\n");
    const { page, errors } = await openPage(browser, fixture, "09");
    expect(await page.locator(".entry").count()).toBe(200);
    expect(await page.locator(".page-info").first().textContent()).toBe("第 1 / 5 页（共 1000 条）");
    // 长文字先折起来
    expect((await page.locator("#entry-0 pre").textContent())?.length).toBe(4000);
    await page.locator("#entry-0 .more").click();
    expect((await page.locator("#entry-0 pre").textContent())?.length).toBeGreaterThan(8000);
    await page.getByRole("button", { name: "最后一页 »" }).first().click();
    expect(await page.locator(".entry").count()).toBe(200);
    expect(await page.locator(".entry").last().getAttribute("id")).toBe("entry-999");
    expect(errors).toEqual([]);
  });
});
