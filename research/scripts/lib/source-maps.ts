// 从已发布包自带的 .js.map（sourcesContent）还原原始 TypeScript 源码。
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import {
  PI_PACKAGES,
  PI_SRC_DIR,
  RESEARCH_DIR,
  installedPackageDir,
  readPinnedVersions,
  recoveredDir,
} from "./pi-packages.ts";

export interface RecoverResult {
  packageName: string;
  version: string;
  outDir: string;
  /** 扫描到的 .js.map 个数。 */
  maps: number;
  /** 还原出的文件（包内相对路径，posix 分隔符），已排序。 */
  files: string[];
  /** 出现在 sources 里、但 sourcesContent 缺失的文件。 */
  missingContent: string[];
  /** sources 指向包外（或无法解析）的条目，原样记录。 */
  outside: string[];
  /** 同一路径在不同 map 里内容不一致（取第一次出现的）。 */
  conflicts: string[];
}

interface RawSourceMap {
  sources?: unknown;
  sourcesContent?: unknown;
  sourceRoot?: unknown;
}

const MANIFEST = "manifest.json";

/** 列出包目录里所有 .js.map（跳过嵌套的 node_modules）。 */
export function listJsMaps(packageDir: string): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === "node_modules") continue;
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile() && entry.name.endsWith(".js.map")) out.push(full);
    }
  };
  walk(packageDir);
  return out.sort();
}

/**
 * 把 map 里的一个 sources 条目换算成包内相对路径。
 * 例：dist/utils/overflow.js.map 里的 "../../src/utils/overflow.ts" → "src/utils/overflow.ts"。
 * 指向包外、带协议头或绝对路径的条目返回 undefined。
 */
export function packageRelativeSource(mapRelPath: string, source: string, sourceRoot = ""): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(source) || source.startsWith("/")) return undefined;
  const mapDir = path.posix.dirname(mapRelPath.split(path.sep).join("/"));
  const joined = path.posix.normalize(path.posix.join(mapDir, sourceRoot, source));
  if (joined.startsWith("../") || joined === ".." || path.posix.isAbsolute(joined)) return undefined;
  if (joined.split("/").includes("node_modules")) return undefined;
  return joined;
}

/**
 * 还原一个包：读所有 .js.map，把 sourcesContent 写到 outDir/<包内相对路径>。
 * 先写临时目录再改名，并发调用（vitest 多个 worker）不会看到写了一半的目录。
 */
export function recoverPackage(packageName: string, version: string, packageDir: string, outDir: string): RecoverResult {
  const maps = listJsMaps(packageDir);
  const contents = new Map<string, string>();
  const missing = new Set<string>();
  const outside: string[] = [];
  const conflicts = new Set<string>();

  for (const mapFile of maps) {
    const mapRel = path.relative(packageDir, mapFile);
    let raw: RawSourceMap;
    try {
      raw = JSON.parse(readFileSync(mapFile, "utf8")) as RawSourceMap;
    } catch (error) {
      throw new Error(`${packageName}@${version}: 无法解析 ${mapRel}：${(error as Error).message}`);
    }
    const sources = Array.isArray(raw.sources) ? (raw.sources as unknown[]) : [];
    const sourcesContent = Array.isArray(raw.sourcesContent) ? (raw.sourcesContent as unknown[]) : [];
    const sourceRoot = typeof raw.sourceRoot === "string" ? raw.sourceRoot : "";
    sources.forEach((source, i) => {
      if (typeof source !== "string") return;
      const rel = packageRelativeSource(mapRel, source, sourceRoot);
      if (!rel) {
        outside.push(`${mapRel}: ${source}`);
        return;
      }
      const content = sourcesContent[i];
      if (typeof content !== "string") {
        missing.add(rel);
        return;
      }
      const previous = contents.get(rel);
      if (previous === undefined) contents.set(rel, content);
      else if (previous !== content) conflicts.add(rel);
    });
  }
  for (const rel of contents.keys()) missing.delete(rel);

  const files = [...contents.keys()].sort();
  const result: RecoverResult = {
    packageName,
    version,
    outDir,
    maps: maps.length,
    files,
    missingContent: [...missing].sort(),
    outside,
    conflicts: [...conflicts].sort(),
  };
  if (files.length === 0) {
    throw new Error(
      `${packageName}@${version}: 在 ${maps.length} 个 .js.map 里没有找到任何 sourcesContent——` +
        "这个版本发布的 source map 不带原始源码，无法还原，也就无法核对引用。",
    );
  }

  const parent = path.dirname(outDir);
  mkdirSync(parent, { recursive: true });
  const tmp = path.join(parent, `.tmp-${path.basename(outDir)}-${process.pid}-${Date.now()}`);
  try {
    for (const rel of files) {
      const target = path.join(tmp, ...rel.split("/"));
      mkdirSync(path.dirname(target), { recursive: true });
      writeFileSync(target, contents.get(rel)!);
    }
    const manifest = { ...result, outDir: undefined };
    writeFileSync(path.join(tmp, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
    if (existsSync(outDir)) rmSync(outDir, { recursive: true, force: true });
    try {
      renameSync(tmp, outDir);
    } catch (error) {
      // 另一个进程刚好抢先完成：它写的内容与我们相同，用它的即可。
      if (!existsSync(path.join(outDir, MANIFEST))) throw error;
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  return result;
}

/** 读已还原目录的清单；没有清单（或不完整）返回 undefined。 */
export function readManifest(outDir: string): RecoverResult | undefined {
  const file = path.join(outDir, MANIFEST);
  if (!existsSync(file)) return undefined;
  try {
    return { ...(JSON.parse(readFileSync(file, "utf8")) as RecoverResult), outDir };
  } catch {
    return undefined;
  }
}

export interface EnsureOptions {
  researchDir?: string;
  piSrcDir?: string;
  /** 即使已有还原结果也重新生成。 */
  force?: boolean;
}

export interface EnsureEntry {
  result: RecoverResult;
  /** 本次是否真的重新还原了（false 表示沿用已有目录）。 */
  recovered: boolean;
}

/**
 * 确保三个钉住版本的源码都已还原。已有就直接用（懒加载），缺了就现场还原。
 * 已安装版本与钉住版本不一致时报错，提示先 `npm ci --prefix research`。
 */
export function ensurePiSources(options: EnsureOptions = {}): EnsureEntry[] {
  const researchDir = options.researchDir ?? RESEARCH_DIR;
  const piSrcDir = options.piSrcDir ?? PI_SRC_DIR;
  const pins = readPinnedVersions(researchDir);
  const entries: EnsureEntry[] = [];
  for (const name of PI_PACKAGES) {
    const version = pins[name];
    const outDir = recoveredDir(name, version, piSrcDir);
    if (!options.force) {
      const manifest = readManifest(outDir);
      if (manifest && manifest.version === version) {
        entries.push({ result: manifest, recovered: false });
        continue;
      }
    }
    const packageDir = installedPackageDir(name, researchDir);
    const pkgJson = path.join(packageDir, "package.json");
    if (!existsSync(pkgJson)) {
      throw new Error(`没有安装 ${name}（找不到 ${pkgJson}）。先运行：npm ci --prefix research`);
    }
    const installed = (JSON.parse(readFileSync(pkgJson, "utf8")) as { version: string }).version;
    if (installed !== version) {
      throw new Error(
        `${name} 已安装 ${installed}，但 research/package.json 钉的是 ${version}。先运行：npm install --prefix research`,
      );
    }
    entries.push({ result: recoverPackage(name, version, packageDir, outDir), recovered: true });
  }
  return entries;
}
