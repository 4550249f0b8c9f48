// 源码还原：真实的还原结果齐全；还原逻辑本身用一个假包验证（含「map 不带源码」的报错）。
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { PI_PACKAGES, readPinnedVersions, recoveredDir } from "../scripts/lib/pi-packages.ts";
import { ensurePiSources, packageRelativeSource, recoverPackage } from "../scripts/lib/source-maps.ts";

describe("recovered Pi sources (pinned versions)", () => {
  const pins = readPinnedVersions();
  const entries = ensurePiSources();

  it("pins all three packages to the same exact version", () => {
    expect(new Set(PI_PACKAGES.map((p) => pins[p])).size).toBe(1);
  });

  it.each([
    ["@earendil-works/pi-ai", "src/utils/overflow.ts", "export function isContextOverflow"],
    ["@earendil-works/pi-agent-core", "src/agent-loop.ts", "export function agentLoop"],
    ["@earendil-works/pi-coding-agent", "src/core/extensions/loader.ts", "createExtensionRuntime"],
    ["@earendil-works/pi-coding-agent", "src/core/extensions/types.ts", "export type ExtensionFactory"],
  ])("%s has %s", (name, file, needle) => {
    const full = path.join(recoveredDir(name, pins[name as keyof typeof pins]), ...file.split("/"));
    expect(existsSync(full), full).toBe(true);
    expect(readFileSync(full, "utf8")).toContain(needle);
  });

  it("recovers every file listed in the maps, with content", () => {
    for (const { result } of entries) {
      expect(result.files.length, result.packageName).toBeGreaterThan(0);
      expect(result.missingContent, result.packageName).toEqual([]);
      expect(result.files.every((f) => f.startsWith("src/")), result.packageName).toBe(true);
    }
  });
});

describe("packageRelativeSource", () => {
  it("maps ../src paths back to package-relative src/ paths", () => {
    expect(packageRelativeSource("dist/utils/overflow.js.map", "../../src/utils/overflow.ts")).toBe(
      "src/utils/overflow.ts",
    );
    expect(packageRelativeSource("dist/agent.js.map", "../src/agent.ts")).toBe("src/agent.ts");
    expect(packageRelativeSource("dist/a.js.map", "a.ts", "../src/")).toBe("src/a.ts");
  });

  it("rejects sources outside the package", () => {
    expect(packageRelativeSource("dist/a.js.map", "../../other/a.ts")).toBeUndefined();
    expect(packageRelativeSource("dist/a.js.map", "webpack://x/a.ts")).toBeUndefined();
    expect(packageRelativeSource("dist/a.js.map", "../node_modules/x/a.ts")).toBeUndefined();
  });
});

describe("recoverPackage on a fake package", () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  function fakePackage(maps: Record<string, object>): string {
    const dir = mkdtempSync(path.join(tmpdir(), "fake-pkg-"));
    dirs.push(dir);
    for (const [rel, map] of Object.entries(maps)) {
      const file = path.join(dir, rel);
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, JSON.stringify(map));
    }
    return dir;
  }

  it("writes sourcesContent under src/ and reports what it could not recover", () => {
    const pkg = fakePackage({
      "dist/a.js.map": { version: 3, sources: ["../src/a.ts"], sourcesContent: ["export const a = 1;\n"] },
      "dist/sub/b.js.map": { version: 3, sources: ["../../src/sub/b.ts", "../../src/sub/c.ts"], sourcesContent: ["b", null] },
      "node_modules/dep/x.js.map": { version: 3, sources: ["../src/x.ts"], sourcesContent: ["x"] },
    });
    const out = path.join(pkg, "out", "@scope", "fake@1.0.0");
    const result = recoverPackage("@scope/fake", "1.0.0", pkg, out);
    expect(result.maps).toBe(2);
    expect(result.files).toEqual(["src/a.ts", "src/sub/b.ts"]);
    expect(result.missingContent).toEqual(["src/sub/c.ts"]);
    expect(readFileSync(path.join(out, "src", "a.ts"), "utf8")).toBe("export const a = 1;\n");
    expect(existsSync(path.join(out, "manifest.json"))).toBe(true);
  });

  it("fails clearly when the maps carry no sourcesContent", () => {
    const pkg = fakePackage({ "dist/a.js.map": { version: 3, sources: ["../src/a.ts"] } });
    expect(() => recoverPackage("@scope/fake", "1.0.0", pkg, path.join(pkg, "out"))).toThrow(
      /没有找到任何 sourcesContent/,
    );
  });
});
