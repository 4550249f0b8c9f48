// R07 里那几个「数出来的」数字，每次测试都对着钉住版本的源码重新数一遍。
// 换了钉住的版本、数字变了，这里会失败，提醒去更新 R07。
import { readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { RESEARCH_DIR, readPinnedVersions, recoveredDir } from "../scripts/lib/pi-packages.ts";

const PKG = "@earendil-works/pi-coding-agent";
const typesFile = path.join(
  recoveredDir(PKG, readPinnedVersions()[PKG]),
  "src",
  "core",
  "extensions",
  "types.ts",
);
const r07 = readFileSync(path.join(RESEARCH_DIR, "R07-extensions.md"), "utf8");

function extensionApi() {
  const text = readFileSync(typesFile, "utf8");
  const source = ts.createSourceFile(typesFile, text, ts.ScriptTarget.Latest, true);
  const decl = source.statements.find(
    (s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === "ExtensionAPI",
  );
  if (!decl) throw new Error(`${typesFile} 里找不到 interface ExtensionAPI`);
  const line = (pos: number) => source.getLineAndCharacterOfPosition(pos).line + 1;
  const names = decl.members.map((m) => (m.name ? m.name.getText(source) : ""));
  const methods = decl.members.filter(ts.isMethodSignature);
  const onOverloads = methods.filter((m) => m.name.getText(source) === "on");
  const otherMethods = methods.filter((m) => m.name.getText(source) !== "on");
  const properties = decl.members.filter(ts.isPropertySignature);
  return {
    start: line(decl.getStart(source)),
    end: line(decl.end),
    members: decl.members.length,
    onOverloads: onOverloads.length,
    onFirst: line(onOverloads[0]!.getStart(source)),
    onLast: line(onOverloads[onOverloads.length - 1]!.end),
    otherMethodSignatures: otherMethods.length,
    otherMethodNames: new Set(otherMethods.map((m) => m.name.getText(source))).size,
    properties: properties.map((p) => p.name.getText(source)),
    events: onOverloads.map((m) => m.parameters[0]!.type!.getText(source).replace(/"/g, "")),
    names,
  };
}

describe("R07 numbers match the pinned ExtensionAPI", () => {
  const api = extensionApi();

  it("counts the interface members as R07 states", () => {
    expect(api).toMatchObject({
      start: 1638,
      end: 1967,
      members: 74,
      onOverloads: 41,
      onFirst: 1643,
      onLast: 1710,
      otherMethodSignatures: 32,
      otherMethodNames: 31,
      properties: ["events"],
    });
    expect(r07).toContain("**74 个成员**");
    expect(r07).toContain("**41 个 `on(...)` 重载**");
    expect(r07).toContain("**32 个其他方法签名**（31 个方法名");
    expect(r07).toContain("`types.ts:1638-1967`");
  });

  it("lists every event name of the on(...) overloads, in source order", () => {
    const listed = [...r07.matchAll(/事件名依次是(.*)。/g)][0]?.[1] ?? "";
    const inR07 = [...listed.matchAll(/`([a-z_]+)`/g)].map((m) => m[1]);
    expect(inR07).toEqual(api.events);
  });
});
