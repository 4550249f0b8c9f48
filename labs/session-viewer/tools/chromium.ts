/**
 * 用系统装好的 Chromium（Debian 的 chromium 包）打开页面：浏览器测试与文档截图共用。
 * 从不下载浏览器；找不到时给出一句说明，由调用方决定跳过还是报错。
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { BrowserContext } from "playwright-core";

/** 可以用 CHROMIUM_PATH 指向别处（macOS、Windows 上的 Chrome）。 */
export const chromiumPath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/** 不能运行时的原因；能运行时为 undefined。 */
export function chromiumMissing(): string | undefined {
  if (fs.existsSync(chromiumPath)) return undefined;
  return `没有找到 Chromium（${chromiumPath}）：Debian/Ubuntu 上运行 apt-get install -y chromium，或用 CHROMIUM_PATH 指向已装的 Chrome/Chromium`;
}

const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

/**
 * 每次用一个新的用户目录：没有旧缓存、旧 Cookie，关掉时一起删掉。
 * 默认断网（offline）；要访问本机服务器的调用方（书站的浏览器测试）传 offline: false，自己拦外部请求。
 */
export async function launchChromium(viewport = { width: 900, height: 900 }, options: { offline?: boolean } = {}): Promise<Browser> {
  const { chromium } = await import("playwright-core");
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), "viewer-chromium-"));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: chromiumPath,
    headless: true,
    args: ARGS,
    viewport,
    offline: options.offline ?? true,
  });
  return {
    context,
    async close() {
      await context.close();
      fs.rmSync(userDataDir, { recursive: true, force: true, maxRetries: 10 });
    },
  };
}
