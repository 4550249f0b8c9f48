/**
 * calc 工具：计算四则运算表达式。
 *
 * 模型写的表达式不可信，所以绝不用 eval / new Function——
 * 那等于让模型执行任意代码（例如 process.exit()）。
 * 这里手写一个递归下降解析器：先切成记号（token），再按优先级逐层解析。
 *
 *   expression := term (("+" | "-") term)*
 *   term       := unary (("*" | "/" | "%") unary)*
 *   unary      := ("+" | "-")* primary
 *   primary    := 数字 | "(" expression ")"
 */

import type { ToolDefinition } from "./types.js";

/**
 * 表达式最长多少个字符：挡住超长输入。
 * 没有乘方，200 个字符以内乘除出来的结果最多约 1e200，不会溢出成 Infinity。
 */
const MAX_LENGTH = 200;
/** 括号最多嵌套几层：每层括号都是一次递归，不设上限就可能爆栈。 */
const MAX_DEPTH = 50;

/** 一个记号：数字或符号。pos 从 1 开始，错误信息里直接给人看。 */
interface Token {
  kind: "number" | "symbol";
  text: string;
  pos: number;
}

/** 把字符串切成记号；遇到不认识的字符立刻报错。 */
function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < source.length) {
    const ch = source.charAt(i);
    if (/\s/.test(ch)) {
      i++;
    } else if (/[0-9.]/.test(ch)) {
      // 先把连续的数字和小数点整段取下，再判断格式：这样 "1.2.3" 能报成一个错，而不是两个数
      const start = i;
      while (/[0-9.]/.test(source.charAt(i))) i++;
      const text = source.slice(start, i);
      if (!/^(\d+\.?\d*|\.\d+)$/.test(text)) throw new Error(`数字格式不对 "${text}"（位置 ${start + 1}）`);
      tokens.push({ kind: "number", text, pos: start + 1 });
    } else if ("+-*/%()".includes(ch)) {
      tokens.push({ kind: "symbol", text: ch, pos: i + 1 });
      i++;
    } else {
      // 用码点取整个字符：emoji 之类占两个 UTF-16 单元，charAt 只会取到半个
      throw new Error(`无法识别的字符 "${String.fromCodePoint(source.codePointAt(i) ?? 0)}"（位置 ${i + 1}）`);
    }
  }
  return tokens;
}

/** 按语法规则解析并同时求值：不建语法树，每个函数直接返回它那一段的值。 */
function parse(tokens: Token[]): number {
  let index = 0;
  let depth = 0;

  /** 下一个记号是不是某个符号（不消耗）。 */
  const isSymbol = (...texts: string[]): boolean => {
    const token = tokens[index];
    return token?.kind === "symbol" && texts.includes(token.text);
  };

  /** 此处出现了不该出现的记号（或者表达式提前结束了）。 */
  const unexpected = (): Error => {
    const token = tokens[index];
    return token ? new Error(`意外的 "${token.text}"（位置 ${token.pos}）`) : new Error("表达式不完整，末尾缺少数字");
  };

  // 加减：优先级最低。用循环而不是递归，保证 10-2-3 是 (10-2)-3（左结合）
  function expression(): number {
    let value = term();
    while (isSymbol("+", "-")) {
      const op = tokens[index++]?.text;
      const right = term();
      value = op === "+" ? value + right : value - right;
    }
    return value;
  }

  // 乘、除、取余：比加减先算
  function term(): number {
    let value = unary();
    while (isSymbol("*", "/", "%")) {
      const op = tokens[index++]?.text;
      const right = unary();
      if (op !== "*" && right === 0) throw new Error("除数不能为 0");
      value = op === "*" ? value * right : op === "/" ? value / right : value % right;
    }
    return value;
  }

  // 一元正负号：连写几个都行（--3 = 3），用循环数符号，免得又多一层递归
  function unary(): number {
    let sign = 1;
    while (isSymbol("+", "-")) {
      if (tokens[index++]?.text === "-") sign = -sign;
    }
    return sign * primary();
  }

  // 数字，或一对括号包起来的完整表达式
  function primary(): number {
    const token = tokens[index];
    if (token?.kind === "number") {
      index++;
      return Number(token.text);
    }
    if (token?.text !== "(") throw unexpected();
    if (++depth > MAX_DEPTH) throw new Error(`括号嵌套太深（超过 ${MAX_DEPTH} 层）`);
    index++;
    const value = expression();
    if (index >= tokens.length) throw new Error(`缺少右括号：位置 ${token.pos} 的左括号没有配对`);
    if (!isSymbol(")")) throw unexpected();
    index++;
    depth--;
    return value;
  }

  const value = expression();
  // 整个表达式解析完了却还有剩余记号：多出的右括号，或者两个数之间缺了运算符
  const rest = tokens[index];
  if (rest?.text === ")") throw new Error(`多余的右括号（位置 ${rest.pos}）`);
  if (rest) throw new Error(`多余的内容 "${rest.text}"（位置 ${rest.pos}）`);
  return value;
}

/** 纯函数：算出表达式的值。出错时抛出带中文说明的 Error。 */
export function evaluate(expression: string): number {
  if (expression.length > MAX_LENGTH) throw new Error(`表达式太长（${expression.length} 个字符，上限 ${MAX_LENGTH}）`);
  const tokens = tokenize(expression);
  if (tokens.length === 0) throw new Error("表达式为空");
  return parse(tokens);
}

/**
 * 把结果变成给模型看的文字。
 * 浮点数有噪声（0.1+0.2 = 0.30000000000000004），保留 12 位有效数字再转回数字，
 * 噪声和多余的 0 就都去掉了；-0 也会变成 "0"。
 */
export function formatNumber(value: number): string {
  return String(Number(value.toPrecision(12)));
}

export const calcTool: ToolDefinition = {
  name: "calc",
  description: "计算一个四则运算表达式，支持 + - * / %、括号和小数，例如 (1+2)*3.5",
  parameters: {
    type: "object",
    properties: {
      expression: { type: "string", description: "要计算的表达式，例如 17*38 或 (1+2)/3" },
    },
    required: ["expression"],
    additionalProperties: false,
  },
  // 参数已由注册表校验过，expression 一定是字符串；出错直接抛，注册表会变成错误结果
  execute(args) {
    return { content: formatNumber(evaluate(String(args.expression))) };
  },
};
