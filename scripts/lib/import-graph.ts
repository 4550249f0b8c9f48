import fs from "node:fs";
import path from "node:path";
import ts from "typescript";
import { toPosix } from "./paths.ts";
import { walkFiles } from "./walk-files.ts";

/**
 * 一个步骤 src/ 里的 import 关系：用 TypeScript 自己的解析器读每个文件的 import / export … from / import()，
 * 再用 TypeScript 的模块解析（和 tsc 一样把 ./x.js 解析到 ./x.ts）找到目标文件。只留 src/ 里面的边。
 * 为什么不用 esbuild 的 metafile：打包时 `import type` 已经被抹掉，书里的文件只靠类型互相引用也算一个环
 * （issue 48 的 extensions.ts ↔ extension-staging.ts 就是），esbuild 看不见它。
 */

export interface ImportEdge {
  /** 相对于 src/ 的路径，正斜杠 */
  from: string;
  to: string;
  /** 只为类型而引用（import type、全是 type 的具名导入）：运行时不存在 */
  typeOnly: boolean;
}

const OPTIONS: ts.CompilerOptions = { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, allowImportingTsExtensions: true };

/** 一个文件里引用了哪些模块（原文的说明符），以及是不是只为类型。 */
function specifiers(file: string): Array<{ spec: string; typeOnly: boolean }> {
  const source = ts.createSourceFile(file, fs.readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  const found: Array<{ spec: string; typeOnly: boolean }> = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const named = clause?.namedBindings;
      const allTypes = clause !== undefined && (clause.isTypeOnly || (clause.name === undefined && named !== undefined && ts.isNamedImports(named) && named.elements.length > 0 && named.elements.every((e) => e.isTypeOnly)));
      found.push({ spec: node.moduleSpecifier.text, typeOnly: allTypes });
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      found.push({ spec: node.moduleSpecifier.text, typeOnly: node.isTypeOnly });
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] && ts.isStringLiteral(node.arguments[0])) {
      found.push({ spec: node.arguments[0].text, typeOnly: false });
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      found.push({ spec: node.argument.literal.text, typeOnly: true });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** srcDir 里所有 .ts 文件之间的 import 边（指向 src/ 之外的不算）。 */
export function importEdges(srcDir: string): ImportEdge[] {
  const files = walkFiles(srcDir).filter((f) => f.endsWith(".ts"));
  const edges: ImportEdge[] = [];
  for (const rel of files) {
    const abs = path.join(srcDir, rel);
    for (const { spec, typeOnly } of specifiers(abs)) {
      const resolved = ts.resolveModuleName(spec, abs, OPTIONS, ts.sys).resolvedModule?.resolvedFileName;
      if (resolved === undefined) continue;
      const to = toPosix(path.relative(srcDir, resolved));
      if (to.startsWith("..") || path.isAbsolute(to)) continue;
      edges.push({ from: rel, to, typeOnly });
    }
  }
  return edges;
}

/** 有向图里的一个环（首尾相同的路径），没有就是 undefined。 */
export function findCycle(edges: ReadonlyArray<{ from: string; to: string }>): string[] | undefined {
  const next = new Map<string, string[]>();
  for (const { from, to } of edges) next.set(from, [...(next.get(from) ?? []), to]);
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (node: string): string[] | undefined => {
    state.set(node, "open");
    stack.push(node);
    for (const to of [...new Set(next.get(node) ?? [])].sort()) {
      if (state.get(to) === "open") return [...stack.slice(stack.indexOf(to)), to];
      if (state.get(to) === undefined) {
        const cycle = visit(to);
        if (cycle) return cycle;
      }
    }
    stack.pop();
    state.set(node, "done");
    return undefined;
  };
  for (const node of [...next.keys()].sort()) {
    if (state.get(node) === undefined) {
      const cycle = visit(node);
      if (cycle) return cycle;
    }
  }
  return undefined;
}

/**
 * 目录之间运行时的引用：src/ 下的子目录（providers/、providers/guards/、guards/、retry/、tools/）各是一个点，
 * src/ 本身（types.ts 与程序的入口）不算：共用的类型谁都可以引用。只为类型的引用也不算：它们在运行时不存在。
 */
export function folderEdges(edges: readonly ImportEdge[]): Array<{ from: string; to: string }> {
  const dir = (file: string): string => path.posix.dirname(file);
  return edges
    .filter((e) => !e.typeOnly && dir(e.from) !== "." && dir(e.to) !== "." && dir(e.from) !== dir(e.to))
    .map((e) => ({ from: `${dir(e.from)}/`, to: `${dir(e.to)}/` }));
}
