// 书站的轻量安装（issue 32 第 3 项）：Mermaid 与 Pi 的三个包不经 npm ci（它们的依赖书站用不到），
// 只从压缩包里取要用的文件；压缩包要与 book/package.json 记下的校验和一致，里面的路径不能跳出包目录。
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { bookInstalled, dirSizeMB, extractTarball, integrityOf, lockPackages, readTarballs, type Tarball } from "../lib/book-install.ts";
import { repoRoot } from "../lib/paths.ts";
import { keepMatcher, readTgz, safeEntryPath } from "../lib/untar.ts";

/** 一个 tar 头（只填读的人要用的字段） */
function header(name: string, size: number, type: string): Buffer {
  const h = Buffer.alloc(512);
  h.write(name.slice(0, 100), 0, "utf8");
  h.write(`${size.toString(8).padStart(11, "0")}\0`, 124, "ascii");
  h.write(type, 156, "ascii");
  h.write("ustar\0" + "00", 257, "ascii");
  return h;
}
function entry(name: string, body: string | Buffer, type = "0"): Buffer {
  const data = Buffer.from(body);
  return Buffer.concat([header(name, data.length, type), data, Buffer.alloc((512 - (data.length % 512)) % 512)]);
}
function pax(pathValue: string): Buffer {
  const rec = (len: number) => `${len} path=${pathValue}\n`;
  let len = rec(0).length;
  while (rec(len).length !== len) len = rec(len).length;
  return entry("PaxHeader", rec(len), "x");
}
function tgz(...parts: Buffer[]): Buffer {
  return zlib.gzipSync(Buffer.concat([...parts, Buffer.alloc(1024)]));
}

const longPath = `package/dist/${"deep/".repeat(30)}core.js.map`;
const sample = tgz(
  entry("package/package.json", '{"name":"p","version":"1.0.0"}'),
  entry("package/dist/", "", "5"),
  entry("package/dist/index.js", "x".repeat(700)),
  entry("package/dist/index.js.map", '{"sources":[]}'),
  pax(longPath),
  entry("package/dist/ignored-short-name", '{"long":true}'),
  entry("package/../../evil.md", "escape"),
  entry("package/docs/extensions.md", "# 扩展"),
);

describe("从 npm 包的压缩包里取文件", () => {
  it("只取 keep 认的普通文件；pax 长路径照认；目录、跳出包的路径不取", () => {
    const files = readTgz(sample, keepMatcher(["package.json", "*.md", "*.js.map"]));
    expect(files.map((f) => f.path)).toEqual(["package.json", "dist/index.js.map", longPath.slice("package/".length), "docs/extensions.md"]);
    expect(files[3]?.data.toString("utf8")).toBe("# 扩展");
  });

  it("安全的包内路径", () => {
    for (const bad of ["", "/etc/passwd", "../x", "a/../../x", "a\\b", "C:/x", "a//b"]) expect(safeEntryPath(bad), bad).toBe(false);
    expect(safeEntryPath("dist/mermaid.min.js")).toBe(true);
  });
});

describe("放进 book/node_modules", () => {
  let book: string;
  const t = (integrity: string): Tarball => ({ version: "1.0.0", integrity, keep: ["package.json", "*.js.map"] });
  beforeEach(() => {
    book = fs.mkdtempSync(path.join(os.tmpdir(), "book-install-"));
    fs.mkdirSync(path.join(book, "node_modules"));
  });
  afterEach(() => fs.rmSync(book, { recursive: true, force: true }));

  it("校验和对得上：只留 keep 列的文件", () => {
    const kept = extractTarball(book, "@scope/p", t(integrityOf(sample)), sample);
    const dir = path.join(book, "node_modules", "@scope", "p");
    expect(fs.existsSync(path.join(dir, "package.json"))).toBe(true);
    expect(fs.existsSync(path.join(dir, "dist", "index.js.map"))).toBe(true);
    expect(fs.existsSync(path.join(dir, "dist", "index.js"))).toBe(false);
    expect(kept).toBeLessThan(700);
  });

  it("校验和对不上：不用它，什么也不写", () => {
    expect(() => extractTarball(book, "p", t("sha512-AAAA"), sample)).toThrow(/p@1\.0\.0 的压缩包与 book\/package\.json 里记下的校验和不符/);
    expect(fs.readdirSync(path.join(book, "node_modules"))).toEqual([]);
  });

  it("没有指纹、或压缩包里取的包不在了，都算没装好", () => {
    fs.writeFileSync(path.join(book, "package.json"), JSON.stringify({ bookTarballs: { p: t("sha512-x") } }));
    fs.writeFileSync(path.join(book, "package-lock.json"), "{}");
    expect(bookInstalled(book)).toBe(false);
  });
});

describe("book/ 的锁文件与 bookTarballs", () => {
  it("进度按这台机器会装的包算：别的系统、CPU、libc 的可选包不算", () => {
    const lock = {
      packages: {
        "": {},
        "node_modules/a": {},
        "node_modules/@esbuild/linux-x64": { os: ["linux"], cpu: ["x64"] },
        "node_modules/@esbuild/win32-x64": { os: ["win32"], cpu: ["x64"] },
        "node_modules/@rollup/rollup-linux-x64-musl": { os: ["linux"], cpu: ["x64"], libc: ["musl"] },
        "node_modules/fsevents": { os: ["darwin"] },
        "node_modules/not-aix": { os: ["!aix"] },
      },
    };
    expect(lockPackages(lock, "linux", "x64", "glibc")).toEqual(["node_modules/a", "node_modules/@esbuild/linux-x64", "node_modules/not-aix"]);
    expect(lockPackages(lock, "win32", "x64", "glibc")).toEqual(["node_modules/a", "node_modules/@esbuild/win32-x64", "node_modules/not-aix"]);
  });

  it("Mermaid 与 Pi 的三个包不在 npm ci 里：只从压缩包取要用的文件，版本与 research/ 钉的相同", () => {
    const bookDir = path.join(repoRoot, "book");
    const pkg = JSON.parse(fs.readFileSync(path.join(bookDir, "package.json"), "utf8")) as { devDependencies: Record<string, string> };
    const lock = fs.readFileSync(path.join(bookDir, "package-lock.json"), "utf8");
    const tarballs = readTarballs(bookDir);
    const research = JSON.parse(fs.readFileSync(path.join(repoRoot, "research", "package.json"), "utf8")) as { devDependencies: Record<string, string> };
    expect(Object.keys(tarballs).sort()).toEqual(["@earendil-works/pi-agent-core", "@earendil-works/pi-ai", "@earendil-works/pi-coding-agent", "mermaid"]);
    for (const [name, t] of Object.entries(tarballs)) {
      expect(pkg.devDependencies[name], name).toBeUndefined();
      expect(lock).not.toContain(`"node_modules/${name}"`);
      expect(t.integrity).toMatch(/^sha512-[A-Za-z0-9+/]+=*$/);
      if (name.startsWith("@earendil-works/")) expect(t.version).toBe(research.devDependencies[name]);
    }
    expect(tarballs.mermaid?.keep).toContain("dist/mermaid.min.js");
  });

  it("dirSizeMB 数的是文件的字节", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "book-size-"));
    fs.mkdirSync(path.join(dir, "a"));
    fs.writeFileSync(path.join(dir, "a", "f"), Buffer.alloc(1024 * 1024));
    expect(dirSizeMB(dir)).toBe(1);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
