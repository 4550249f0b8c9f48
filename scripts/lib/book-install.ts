// 书站的依赖：第一次运行 npm run book* 时装一次，锁文件变了才再装。分两部分：
//   1. book/package-lock.json 里的包（VitePress、Shiki、playwright-core……）：npm ci，边装边报进度；
//   2. book/package.json 的 bookTarballs 里的包（Mermaid、Pi 的三个包）：它们的依赖书站用不到
//      （Mermaid 只加载打好的 mermaid.min.js，Pi 的包只用来从 source map 还原源码），
//      所以只用 npm pack 取来压缩包、核对校验和，解出 keep 里列的文件放进 node_modules/<包名>/。
// 装好后写下指纹（锁文件 + bookTarballs），并打印装了多少、占多大。
import { spawn, spawnSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { keepMatcher, readTgz } from "./untar.ts";

export interface Tarball {
  version: string;
  integrity: string;
  keep: string[];
}

interface LockEntry {
  version?: string;
  os?: string[];
  cpu?: string[];
  libc?: string[];
  link?: boolean;
}

function libcOf(): string {
  const header = (process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined)?.header;
  return header?.glibcVersionRuntime === undefined ? "musl" : "glibc";
}

const STAMP = ".book-lock.sha256";
const npm = process.platform === "win32" ? "npm.cmd" : "npm";

export function readTarballs(bookDir: string): Record<string, Tarball> {
  const pkg = JSON.parse(fs.readFileSync(path.join(bookDir, "package.json"), "utf8")) as { bookTarballs?: Record<string, Tarball> };
  return pkg.bookTarballs ?? {};
}

function stampOf(bookDir: string): string {
  return crypto
    .createHash("sha256")
    .update(fs.readFileSync(path.join(bookDir, "package-lock.json")))
    .update(JSON.stringify(readTarballs(bookDir)))
    .digest("hex");
}

function packageDir(bookDir: string, name: string): string {
  return path.join(bookDir, "node_modules", ...name.split("/"));
}

/** 已经按现在的锁文件与 bookTarballs 装好了（指纹对得上，压缩包里取的包也都在） */
export function bookInstalled(bookDir: string): boolean {
  const stamp = path.join(bookDir, "node_modules", STAMP);
  if (!fs.existsSync(stamp) || fs.readFileSync(stamp, "utf8").trim() !== stampOf(bookDir)) return false;
  return Object.entries(readTarballs(bookDir)).every(([name, t]) => {
    try {
      return (JSON.parse(fs.readFileSync(path.join(packageDir(bookDir, name), "package.json"), "utf8")) as { version?: string }).version === t.version;
    } catch {
      return false;
    }
  });
}

/** 锁文件里这台机器会装的包（别的系统、别的 CPU 的可选包不算） */
export function lockPackages(lock: { packages?: Record<string, LockEntry> }, platform: string = process.platform, arch: string = process.arch, libc: string = libcOf()): string[] {
  // 「["linux"]」只在这些上装，「["!win32"]」除了这些都装
  const fits = (list: string[] | undefined, value: string) => list === undefined || (list.some((x) => !x.startsWith("!")) ? list.includes(value) : !list.includes(`!${value}`));
  return Object.entries(lock.packages ?? {})
    .filter(([p, e]) => p !== "" && e.link !== true && fits(e.os, platform) && fits(e.cpu, arch) && (platform !== "linux" || fits(e.libc, libc)))
    .map(([p]) => p);
}

/** 一个目录里所有文件的大小之和（MB） */
export function dirSizeMB(dir: string): number {
  let bytes = 0;
  const walk = (d: string): void => {
    for (const entry of fs.readdirSync(d, { withFileTypes: true })) {
      const full = path.join(d, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile()) bytes += fs.statSync(full).size;
    }
  };
  if (fs.existsSync(dir)) walk(dir);
  return bytes / 1024 / 1024;
}

/** sha512-… 形式的校验和（与 package-lock.json 的 integrity 同一种写法） */
export function integrityOf(data: Buffer): string {
  return `sha512-${crypto.createHash("sha512").update(data).digest("base64")}`;
}

/** 把一个压缩包里 keep 列的文件放进 node_modules/<包名>/；返回留下的字节数 */
export function extractTarball(bookDir: string, name: string, t: Tarball, tgz: Buffer): number {
  const got = integrityOf(tgz);
  if (got !== t.integrity) throw new Error(`${name}@${t.version} 的压缩包与 book/package.json 里记下的校验和不符（${got.slice(0, 20)}…），没有用它`);
  const files = readTgz(tgz, keepMatcher(t.keep));
  if (!files.some((f) => f.path === "package.json")) throw new Error(`${name}@${t.version} 的压缩包里没有 package.json`);
  const dir = packageDir(bookDir, name);
  fs.rmSync(dir, { recursive: true, force: true, maxRetries: 10 });
  let bytes = 0;
  for (const f of files) {
    const to = path.join(dir, ...f.path.split("/"));
    fs.mkdirSync(path.dirname(to), { recursive: true });
    fs.writeFileSync(to, f.data);
    bytes += f.data.length;
  }
  return bytes;
}

function mb(n: number): string {
  return `${n < 10 ? n.toFixed(1) : Math.round(n)} MB`;
}

/** npm ci（在 book/ 里运行），每隔几秒报一次已装的包数 */
function npmCi(bookDir: string, expected: string[], log: (line: string) => void): Promise<number | null> {
  return new Promise((resolve) => {
    const child = spawn(npm, ["ci", "--no-audit", "--no-fund", "--loglevel=error"], { cwd: bookDir, stdio: ["ignore", "inherit", "inherit"], shell: process.platform === "win32" });
    let last = -1;
    const timer = setInterval(() => {
      const n = expected.filter((p) => fs.existsSync(path.join(bookDir, ...p.split("/")))).length;
      if (n !== last && n > 0) log(`  已装 ${n}/${expected.length} 个包`);
      last = n;
    }, 3000);
    child.on("error", (error) => {
      clearInterval(timer);
      log(`  起不来 npm：${error.message}`);
      resolve(null);
    });
    child.on("close", (code) => {
      clearInterval(timer);
      resolve(code);
    });
  });
}

/** 用 npm pack 取一个包的压缩包（走学习者自己的 npm 配置与缓存：镜像、代理都照用） */
function npmPack(name: string, version: string): Buffer {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "book-pack-"));
  try {
    const r = spawnSync(npm, ["pack", `${name}@${version}`, "--silent", "--loglevel=error"], { cwd: tmp, encoding: "utf8", shell: process.platform === "win32" });
    const file = fs.readdirSync(tmp).find((f) => f.endsWith(".tgz"));
    if (r.status !== 0 || file === undefined) throw new Error(`npm pack ${name}@${version} 失败：${(r.stderr || r.error?.message || "").trim().split("\n")[0] ?? ""}`);
    return fs.readFileSync(path.join(tmp, file));
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true, maxRetries: 10 });
  }
}

/** 没装或装的不是现在这份就装；失败时返回一句原因（已经打印过 npm 自己的输出） */
export async function ensureBookInstalled(bookDir: string, log: (line: string) => void = console.log): Promise<string | undefined> {
  if (bookInstalled(bookDir)) return undefined;
  const started = Date.now();
  const lock = JSON.parse(fs.readFileSync(path.join(bookDir, "package-lock.json"), "utf8")) as { packages?: Record<string, LockEntry> };
  const expected = lockPackages(lock);
  const tarballs = Object.entries(readTarballs(bookDir));
  log(
    `第一次使用书站（或它的依赖变了）：安装 book/ 的依赖，只装这一次——` +
      `${expected.length} 个包（npm ci，约 155 MB），另从 npm 取 ${tarballs.length} 个包的压缩包、只留要用的文件（${tarballs.map(([n]) => n).join("、")}；下载约 35 MB，留下约 15 MB）`,
  );
  const code = await npmCi(bookDir, expected, log);
  if (code !== 0) return `npm ci 失败（退出码 ${code}，见上面 npm 的输出）。可以手动再试：cd book && npm ci`;
  log(`  npm ci 完成：${mb(dirSizeMB(path.join(bookDir, "node_modules")))}`);
  for (const [name, t] of tarballs) {
    try {
      const tgz = npmPack(name, t.version);
      const kept = extractTarball(bookDir, name, t, tgz);
      log(`  ${name}@${t.version}：压缩包 ${mb(tgz.length / 1024 / 1024)}，留下 ${mb(kept / 1024 / 1024)}（${t.keep.join("、")}）`);
    } catch (error) {
      return (error as Error).message;
    }
  }
  fs.writeFileSync(path.join(bookDir, "node_modules", STAMP), `${stampOf(bookDir)}\n`);
  log(`book/ 的依赖装好了：book/node_modules 共 ${mb(dirSizeMB(path.join(bookDir, "node_modules")))}（${((Date.now() - started) / 1000).toFixed(0)} 秒）`);
  return undefined;
}
