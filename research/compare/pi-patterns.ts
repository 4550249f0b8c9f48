// 从还原出的 Pi 源码（.pi-src/@earendil-works/pi-ai@<版本>/src/utils/overflow.ts 与 retry.ts）里读出
// 分类器的全部模式，以及这两个文件注释里引用的报错原文。对照表由它们推出来（test/classifier-comparison.test.ts）：
// Pi 每多一条模式，表里就多一行，没有例句的那一行会让测试失败——对照不可能再漏掉 Pi 新加的模式。
//
// 用 TypeScript 的语法树读，而不是正则扫文本：数组里的正则字面量、buildProviderErrorPattern([...]) 里的字符串，
// 以及注释，都按语法取出来，换行与缩进变了也不受影响。
import fs from "node:fs";
import path from "node:path";
import ts from "typescript";

/** 模式属于 Pi 的哪张表。 */
export type PiList =
  | "OVERFLOW_PATTERNS" // 溢出
  | "NON_OVERFLOW_PATTERNS" // 排除：像溢出、其实是限流
  | "CEREBRAS_BODYLESS_OVERFLOW_PATTERN" // 只对 provider 为 cerebras 的消息生效的溢出规则
  | "NON_RETRYABLE_PROVIDER_LIMIT_ERROR_PATTERN" // 额度类：不可重试
  | "RETRYABLE_PROVIDER_ERROR_PATTERN"; // 瞬时故障：可重试

export interface PiPattern {
  list: PiList;
  /** 正则的源码（字符串模式就是那个字符串的值）。 */
  source: string;
  flags: string;
  regex: RegExp;
  /** 出处：包内路径与行号，例如 src/utils/retry.ts:37。 */
  where: string;
  /** 稳定的键：表名 + 源码。例句表与预期分歧表都用它点名。 */
  key: string;
}

const FILES = ["src/utils/overflow.ts", "src/utils/retry.ts"] as const;

/** 读出两张文件里的全部模式，按文件、按出现顺序。 */
export function readPiPatterns(piAiDir: string): PiPattern[] {
  const out: PiPattern[] = [];
  for (const file of FILES) {
    const source = parse(piAiDir, file);
    const add = (list: PiList, node: ts.Node, pattern: string, flags: string): void => {
      const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
      out.push({ list, source: pattern, flags, regex: new RegExp(pattern, flags), where: `${file}:${line}`, key: `${list}:${pattern}` });
    };
    const visit = (node: ts.Node): void => {
      if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.initializer && isPiList(node.name.text)) {
        const list = node.name.text;
        const init = node.initializer;
        if (ts.isArrayLiteralExpression(init)) {
          for (const element of init.elements) if (ts.isRegularExpressionLiteral(element)) add(list, element, ...splitRegex(element.text));
        } else if (ts.isRegularExpressionLiteral(init)) {
          add(list, init, ...splitRegex(init.text));
        } else if (ts.isCallExpression(init) && init.arguments[0] && ts.isArrayLiteralExpression(init.arguments[0])) {
          // buildProviderErrorPattern([...])：每个字符串各是一条模式，合起来按 "i" 编译（retry.ts 的 buildProviderErrorPattern）
          for (const element of init.arguments[0].elements) if (ts.isStringLiteralLike(element)) add(list, element, element.text, "i");
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return out;
}

/** 两个文件注释里用引号（"…"、'…'、`…`）括起来的原文：Pi 在注释里引用的真实报错。 */
export function readPiCommentExamples(piAiDir: string): Array<{ text: string; where: string }> {
  const out: Array<{ text: string; where: string }> = [];
  for (const file of FILES) {
    const text = fs.readFileSync(path.join(piAiDir, file), "utf8");
    const scanner = ts.createScanner(ts.ScriptTarget.Latest, false, ts.LanguageVariant.Standard, text);
    for (let kind = scanner.scan(); kind !== ts.SyntaxKind.EndOfFileToken; kind = scanner.scan()) {
      if (kind !== ts.SyntaxKind.SingleLineCommentTrivia && kind !== ts.SyntaxKind.MultiLineCommentTrivia) continue;
      const start = scanner.getTokenStart();
      for (const match of scanner.getTokenText().matchAll(/"((?:[^"\\\n]|\\.)+)"|'((?:[^'\\\n]|\\.)+)'|`([^`\n]+)`/g)) {
        const quoted = (match[1] ?? match[2] ?? match[3] ?? "").replace(/\\(.)/g, "$1");
        const line = text.slice(0, start + (match.index ?? 0)).split("\n").length;
        if (quoted.length < 6) continue;
        out.push({ text: quoted, where: `${file}:${line}` });
        // 注释常把数字写成占位的 X、Y（「Input length X exceeds … of Y tokens」）：另给一份填上数字的
        const filled = quoted.replace(/\bX\b/g, "265330").replace(/\bY\b/g, "262144");
        if (filled !== quoted) out.push({ text: filled, where: `${file}:${line}（X、Y 换成数字）` });
      }
    }
  }
  return out;
}

function parse(piAiDir: string, file: string): ts.SourceFile {
  return ts.createSourceFile(file, fs.readFileSync(path.join(piAiDir, file), "utf8"), ts.ScriptTarget.Latest, true);
}

function isPiList(name: string): name is PiList {
  return [
    "OVERFLOW_PATTERNS",
    "NON_OVERFLOW_PATTERNS",
    "CEREBRAS_BODYLESS_OVERFLOW_PATTERN",
    "NON_RETRYABLE_PROVIDER_LIMIT_ERROR_PATTERN",
    "RETRYABLE_PROVIDER_ERROR_PATTERN",
  ].includes(name);
}

/** `/源码/标志` → [源码, 标志]。 */
function splitRegex(literal: string): [string, string] {
  const end = literal.lastIndexOf("/");
  return [literal.slice(1, end), literal.slice(end + 1)];
}
