/**
 * npm run view:screenshots —— 重新生成 docs/ 里查看器的截图（8.4 与 8.7 用）。
 *
 * 每张图：先跑一遍那个步骤的 demo（它会重写 .sessions/demo.jsonl），
 * 再把会话画成页面，在系统的 Chromium 里打开并截图。需要 Chromium 和一种中文字体
 * （Debian：apt-get install -y chromium fonts-wqy-microhei）。
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { loadSession } from "../src/load.ts";
import { buildModel } from "../src/model.ts";
import { renderPage } from "../src/page.ts";
import { harnessDir, sessionSteps } from "../src/steps.ts";
import { chromiumMissing, launchChromium } from "./chromium.ts";

const docsImages = path.resolve(harnessDir, "..", "..", "docs", "images");
const tsxLoader = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;

interface Shot {
  step: number;
  image: string;
  /** 截到第几条为止（从 0 数）；不给就截整页。 */
  untilEntry?: number;
}

const SHOTS: Shot[] = [
  { step: 6, image: "8.4-session-viewer.png" },
  { step: 9, image: "8.7-session-viewer.png", untilEntry: 13 },
];

function runDemo(stepDir: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", tsxLoader, path.join("src", "demo.ts")], { cwd: stepDir, stdio: "ignore" });
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve() : reject(new Error(`${path.basename(stepDir)} 的 demo 失败（退出码 ${code}）`))));
  });
}

const missing = chromiumMissing();
if (missing) {
  console.error(`无法截图：${missing}`);
  process.exit(1);
}

fs.mkdirSync(docsImages, { recursive: true });
const browser = await launchChromium({ width: 760, height: 900 });
try {
  for (const shot of SHOTS) {
    const step = sessionSteps().find((s) => s.number === shot.step);
    if (!step) throw new Error(`找不到 step${String(shot.step).padStart(2, "0")}`);
    await runDemo(step.dir);
    const loaded = await loadSession(path.join(step.dir, ".sessions", "demo.jsonl"), step.dir);
    const model = buildModel(loaded.lines, { name: loaded.name, step: step.name, stepNumber: step.number, warnings: loaded.warnings });
    const tempDir = fs.mkdtempSync(path.join(os.tmpdir(), "viewer-shot-"));
    const html = path.join(tempDir, "page.html");
    fs.writeFileSync(html, renderPage(model));

    const page = await browser.context.newPage();
    await page.goto(pathToFileURL(html).href);
    await page.waitForSelector("html[data-ready=true]");
    fs.rmSync(tempDir, { recursive: true, force: true, maxRetries: 10 }); // 页面已经载入浏览器：临时文件不再需要
    const target = path.join(docsImages, shot.image);
    if (shot.untilEntry === undefined) {
      await page.screenshot({ path: target, fullPage: true });
    } else {
      const box = await page.locator(`#entry-${shot.untilEntry}`).boundingBox();
      const width = page.viewportSize()?.width ?? 760;
      await page.screenshot({ path: target, fullPage: true, clip: { x: 0, y: 0, width, height: Math.ceil((box?.y ?? 0) + (box?.height ?? 0) + 12) } });
    }
    await page.close();
    console.log(`${path.relative(process.cwd(), target)}（${step.name} 的 demo 会话，${model.entries.length} 条）`);
  }
} finally {
  await browser.close();
}
