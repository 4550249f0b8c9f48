// 研究包里与「钉住的 Pi 版本」有关的共用常量与路径。
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** research/ 目录的绝对路径。 */
export const RESEARCH_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

/** 还原出来的源码放在这里（已 gitignore，按需重建）。 */
export const PI_SRC_DIR = path.join(RESEARCH_DIR, ".pi-src");

/** 允许被引用的三个包。其余包一律视为引用错误。 */
export const PI_PACKAGES = [
  "@earendil-works/pi-ai",
  "@earendil-works/pi-agent-core",
  "@earendil-works/pi-coding-agent",
] as const;

export type PiPackage = (typeof PI_PACKAGES)[number];

export function isPiPackage(name: string): name is PiPackage {
  return (PI_PACKAGES as readonly string[]).includes(name);
}

/**
 * 从 research/package.json 读出钉住的版本。
 * 版本号只有一个出处：package.json。这里不接受范围（^、~），否则引用就不可复现。
 */
export function readPinnedVersions(researchDir: string = RESEARCH_DIR): Record<PiPackage, string> {
  const pkg = JSON.parse(readFileSync(path.join(researchDir, "package.json"), "utf8")) as {
    devDependencies?: Record<string, string>;
  };
  const result = {} as Record<PiPackage, string>;
  for (const name of PI_PACKAGES) {
    const spec = pkg.devDependencies?.[name];
    if (!spec) throw new Error(`research/package.json 的 devDependencies 里没有 ${name}`);
    if (!/^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?$/.test(spec)) {
      throw new Error(`${name} 必须钉成确切版本（如 1.6.0），现在是 "${spec}"`);
    }
    result[name] = spec;
  }
  return result;
}

/** 已安装包的目录（research/node_modules 下）。 */
export function installedPackageDir(name: string, researchDir: string = RESEARCH_DIR): string {
  return path.join(researchDir, "node_modules", ...name.split("/"));
}

/** 还原源码的目录：.pi-src/<package>@<version>。 */
export function recoveredDir(name: string, version: string, piSrcDir: string = PI_SRC_DIR): string {
  return path.join(piSrcDir, ...`${name}@${version}`.split("/"));
}
