// 构建时画图、浏览器测试用的浏览器：找学习者自己装的 Chrome、Edge 或 Chromium（从不下载浏览器）。
// 找的地方与 playwright-core 的 channel "chrome"、"msedge" 相同，再加上各系统里 Chromium 常见的位置；
// 设了 CHROMIUM_PATH 就只用它。
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { BrowserContext } from "playwright-core";

export interface FoundBrowser {
  name: string;
  path: string;
}

/** 按先后顺序列出这个系统上可能的浏览器位置（纯函数：只看平台与环境变量） */
export function browserCandidates(platform: NodeJS.Platform, env: NodeJS.ProcessEnv, home = os.homedir()): FoundBrowser[] {
  if (platform === "win32") {
    const roots = [env.LOCALAPPDATA ?? path.win32.join(home, "AppData", "Local"), env.PROGRAMFILES ?? "C:\\Program Files", env["PROGRAMFILES(X86)"] ?? "C:\\Program Files (x86)"];
    const apps: Array<[string, string[]]> = [
      ["Google Chrome", ["Google", "Chrome", "Application", "chrome.exe"]],
      ["Microsoft Edge", ["Microsoft", "Edge", "Application", "msedge.exe"]],
      ["Chromium", ["Chromium", "Application", "chrome.exe"]],
    ];
    return apps.flatMap(([name, rel]) => roots.map((root) => ({ name, path: path.win32.join(root, ...rel) })));
  }
  if (platform === "darwin") {
    const apps: Array<[string, string]> = [
      ["Google Chrome", "Google Chrome.app/Contents/MacOS/Google Chrome"],
      ["Microsoft Edge", "Microsoft Edge.app/Contents/MacOS/Microsoft Edge"],
      ["Chromium", "Chromium.app/Contents/MacOS/Chromium"],
    ];
    return apps.flatMap(([name, rel]) => ["/Applications", path.posix.join(home, "Applications")].map((dir) => ({ name, path: path.posix.join(dir, rel) })));
  }
  return [
    { name: "Chromium", path: "/usr/bin/chromium" },
    { name: "Chromium", path: "/usr/bin/chromium-browser" },
    { name: "Chromium（snap）", path: "/snap/bin/chromium" },
    { name: "Google Chrome", path: "/opt/google/chrome/chrome" },
    { name: "Google Chrome", path: "/usr/bin/google-chrome" },
    { name: "Microsoft Edge", path: "/opt/microsoft/msedge/msedge" },
    { name: "Microsoft Edge", path: "/usr/bin/microsoft-edge" },
  ];
}

/** 找到的浏览器，或找不到的原因（一句话） */
export function findBrowser(
  platform: NodeJS.Platform = process.platform,
  env: NodeJS.ProcessEnv = process.env,
  exists: (file: string) => boolean = fs.existsSync,
): FoundBrowser | { missing: string } {
  const chosen = env.CHROMIUM_PATH;
  if (chosen !== undefined && chosen !== "") {
    return exists(chosen) ? { name: "CHROMIUM_PATH", path: chosen } : { missing: `CHROMIUM_PATH 指向的 ${chosen} 不存在` };
  }
  const found = browserCandidates(platform, env).find((c) => exists(c.path));
  if (found !== undefined) return found;
  return { missing: "没有找到 Chrome、Edge 或 Chromium（装一个，或用 CHROMIUM_PATH 指向它）" };
}

/** 一条出错信息的第一行（Playwright 的错误带一大段「Call log」，学习者只需要第一句） */
export function firstLine(error: unknown): string {
  let text: string;
  try {
    text = error instanceof Error ? error.message : String(error);
  } catch {
    text = "（无法显示的错误）";
  }
  return (text.split("\n").find((l) => l.trim() !== "") ?? text).trim().slice(0, 300);
}

/** 浏览器起不来的原因：Playwright 对「一启动就退出」只说「Target … has been closed」，替读者翻译一下 */
export function launchFailure(error: unknown): string {
  const line = firstLine(error);
  return /has been closed|Browser closed|process did exit/i.test(line) ? `它一启动就退出了（${line}）` : line;
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

export interface OpenBrowser {
  context: BrowserContext;
  close(): Promise<void>;
}

/**
 * 只让浏览器解析得出本机（127.0.0.1、localhost）：别的主机名一律「找不到」，请求还没出门就失败。
 * 不用 context.route 拦：那会让每个请求都绕到 Node 这边走一趟，还关掉浏览器的缓存。
 */
const ONLY_LOCAL_HOSTS = "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost";

/**
 * 用一个新的用户目录启动（没有旧缓存、旧 Cookie，关掉时一起删掉）。
 * 默认断网；要访问本机服务器的调用方（浏览器测试）传 offline: false 与 onlyLocalHosts: true，自己记下外部请求。
 */
export async function launchBrowser(browser: FoundBrowser, viewport = { width: 900, height: 900 }, options: { offline?: boolean; onlyLocalHosts?: boolean } = {}): Promise<OpenBrowser> {
  const { chromium } = await import("playwright-core");
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), "book-browser-"));
  try {
    const context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: browser.path,
      headless: true,
      args: options.onlyLocalHosts === true ? [...ARGS, ONLY_LOCAL_HOSTS] : ARGS,
      viewport,
      offline: options.offline ?? true,
      timeout: 60_000,
    });
    return {
      context,
      async close() {
        await context.close().catch(() => {});
        fs.rmSync(userDataDir, { recursive: true, force: true, maxRetries: 10 });
      },
    };
  } catch (error) {
    fs.rmSync(userDataDir, { recursive: true, force: true, maxRetries: 10 });
    throw error;
  }
}
