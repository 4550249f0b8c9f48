// 一个源文件里的「定义」各占哪几行：由 TypeScript 编译器解析，不用正则去猜大括号在哪里收尾。
// 文档检查器拿它判断：引用范围点名了一个定义，就要盖住整个定义，不能从中间切开（范围漂移时最先露馅的就是这里）。
import { createRequire } from "node:module";
import type * as TS from "typescript";

// 用根目录装的 typescript；只在第一次真要解析源文件时才加载（约半秒）
let loaded: typeof TS | undefined;
function typescript(): typeof TS {
  loaded ??= createRequire(import.meta.url)("typescript") as typeof TS;
  return loaded;
}

/** 一个定义：名字、外层定义的名字（类名、接口名……，由外到内）、第几行到第几行（从 1 开始，含两端） */
export interface Definition {
  name: string;
  container: string[];
  from: number;
  to: number;
}

const SCRIPT_KINDS: Record<string, keyof typeof TS.ScriptKind> = {
  ".ts": "TS",
  ".mts": "TS",
  ".cts": "TS",
  ".tsx": "TSX",
  ".js": "JS",
  ".mjs": "JS",
  ".cjs": "JS",
  ".jsx": "JSX",
};

/** 去掉 (x)、x as T、x satisfies T、x!，看里面真正的值 */
function unwrap(ts: typeof TS, node: TS.Expression): TS.Expression {
  let e = node;
  while (ts.isParenthesizedExpression(e) || ts.isAsExpression(e) || ts.isSatisfiesExpression(e) || ts.isNonNullExpression(e)) e = e.expression;
  return e;
}

/** 值是函数、类、对象或数组（一张表）时，这个变量或属性才算一个定义；const N = 3 只是一个值 */
function definesSomething(ts: typeof TS, init: TS.Expression | undefined): boolean {
  if (init === undefined) return false;
  const e = unwrap(ts, init);
  return ts.isArrowFunction(e) || ts.isFunctionExpression(e) || ts.isClassExpression(e) || ts.isObjectLiteralExpression(e) || ts.isArrayLiteralExpression(e);
}

function nameText(ts: typeof TS, name: TS.Node | undefined): string | undefined {
  if (name === undefined) return undefined;
  if (ts.isIdentifier(name) || ts.isPrivateIdentifier(name) || ts.isStringLiteral(name) || ts.isNumericLiteral(name)) return name.text;
  return undefined;
}

/** 这个节点若是一个定义，返回它的名字与算作定义的那个节点（变量取整条 const 语句，好把 export const 算进去） */
function asDefinition(ts: typeof TS, node: TS.Node): { name: string; span: TS.Node } | undefined {
  if (
    ts.isFunctionDeclaration(node) ||
    ts.isClassDeclaration(node) ||
    ts.isInterfaceDeclaration(node) ||
    ts.isTypeAliasDeclaration(node) ||
    ts.isEnumDeclaration(node) ||
    ts.isModuleDeclaration(node) ||
    ts.isMethodDeclaration(node) ||
    ts.isMethodSignature(node) ||
    ts.isGetAccessorDeclaration(node) ||
    ts.isSetAccessorDeclaration(node) ||
    ts.isPropertySignature(node)
  ) {
    const name = nameText(ts, node.name);
    return name === undefined ? undefined : { name, span: node };
  }
  if (ts.isConstructorDeclaration(node)) return { name: "constructor", span: node };
  if ((ts.isPropertyDeclaration(node) || ts.isPropertyAssignment(node)) && definesSomething(ts, node.initializer)) {
    const name = nameText(ts, node.name);
    return name === undefined ? undefined : { name, span: node };
  }
  if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && definesSomething(ts, node.initializer)) {
    const list = node.parent;
    const statement = ts.isVariableDeclarationList(list) && list.declarations.length === 1 && ts.isVariableStatement(list.parent) ? list.parent : node;
    return { name: node.name.text, span: statement };
  }
  return undefined;
}

/** fileName 只用来看扩展名；不是 JS/TS 文件时没有定义可言 */
export function findDefinitions(fileName: string, text: string): Definition[] {
  const ext = /\.[^./\\]+$/.exec(fileName)?.[0].toLowerCase() ?? "";
  const kind = SCRIPT_KINDS[ext];
  if (kind === undefined) return [];
  const ts = typescript();
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind[kind]);
  const line = (pos: number) => source.getLineAndCharacterOfPosition(pos).line + 1;
  const out: Definition[] = [];
  const visit = (node: TS.Node, container: string[]): void => {
    const def = asDefinition(ts, node);
    let inner = container;
    if (def !== undefined) {
      // getStart 跳过前面的注释与 JSDoc：注释不是定义的一部分，范围从注释开始也算盖住
      out.push({ name: def.name, container, from: line(def.span.getStart(source)), to: line(def.span.getEnd()) });
      inner = [...container, def.name];
    }
    ts.forEachChild(node, (child) => visit(child, inner));
  };
  visit(source, []);
  return out;
}

const NAME_PATH = /^[A-Za-z_$#][\w$]*(?:\.[A-Za-z_$#][\w$]*)*$/;

/**
 * 行内代码若只是一个名字（`readLines`、`Session.create`、`ask()`、`ReplyBuilder.finish(…)`），返回它的各段；
 * 表达式（`signal?.aborted`、`new AbortController()`）不是在点名定义，返回 undefined。
 */
export function namePath(symbol: string): string[] | undefined {
  const bare = symbol.trim().replace(/\(.*\)$/s, "");
  return NAME_PATH.test(bare) ? bare.split(".") : undefined;
}

/**
 * 名字点到的那些定义：最后一段是定义的名字；前面的段（`Session.create` 的 Session）对得上外层定义时只算那几个，
 * 对不上（`host.emit` 的 host 是个变量）时算文件里所有同名的定义。
 */
export function definitionsNamed(definitions: readonly Definition[], path: readonly string[]): Definition[] {
  const name = path[path.length - 1];
  const same = definitions.filter((d) => d.name === name);
  const outer = path.slice(0, -1);
  if (outer.length === 0) return same;
  const inside = same.filter((d) => outer.every((seg, i) => d.container[d.container.length - outer.length + i] === seg));
  return inside.length > 0 ? inside : same;
}
