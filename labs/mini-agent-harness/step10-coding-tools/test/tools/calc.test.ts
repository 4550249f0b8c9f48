import { describe, expect, it } from "vitest";
import { calcTool, evaluate, formatNumber } from "../../src/tools/calc.js";
import { createBuiltinTools } from "../../src/tools/index.js";

/** 通过注册表调用 calc：错误必须变成 isError 的结果，而不是抛出来。 */
async function runCalc(expression: string) {
  const registry = createBuiltinTools();
  return registry.execute({ type: "toolCall", id: "t1", name: "calc", arguments: { expression } }, { cwd: "." });
}

describe("evaluate：算得对", () => {
  it.each([
    ["1+2*3", 7],
    ["(1+2)*3", 9],
    ["2*(3+4)", 14],
    ["10-2-3", 5], // 左结合
    ["100/10/5", 2], // 左结合
    ["17*38", 646],
    ["7/2", 3.5],
    ["7%3", 1],
    ["-7%3", -1], // 取余的符号跟被除数
    ["1+7%3*2", 3],
    ["-3", -3],
    ["+3", 3],
    ["--3", 3],
    ["2*-3", -6],
    ["-(2+3)*2", -10],
    ["3.5+.5", 4],
    ["3.", 3],
    ["  1 +\t2  ", 3],
    ["((((1))))", 1],
  ])("%s = %d", (expression, expected) => {
    expect(evaluate(expression)).toBe(expected);
  });

  it("浮点误差在格式化时去掉", () => {
    expect(evaluate("0.1+0.2")).not.toBe(0.3); // 原始值确实有噪声
    expect(formatNumber(evaluate("0.1+0.2"))).toBe("0.3");
    expect(formatNumber(evaluate("1/3"))).toBe("0.333333333333");
    expect(formatNumber(evaluate("-0"))).toBe("0");
    // 长度上限内能写出的最大结果仍是有限数
    expect(formatNumber(evaluate("9".repeat(99) + "*" + "9".repeat(100)))).toBe("1e+199");
  });

  it("恰好 50 层括号可以，51 层不行", () => {
    expect(evaluate("(".repeat(50) + "1" + ")".repeat(50))).toBe(1);
    expect(() => evaluate("(".repeat(51) + "1" + ")".repeat(51))).toThrow("括号嵌套太深（超过 50 层）");
  });

  it("恰好 200 个字符可以，201 个不行", () => {
    expect(evaluate("1".padEnd(200, " "))).toBe(1);
    expect(() => evaluate("1".padEnd(201, " "))).toThrow("表达式太长（201 个字符，上限 200）");
  });
});

describe("evaluate：每种错误都有中文说明", () => {
  it.each([
    ["1/0", "除数不能为 0"],
    ["5%0", "除数不能为 0"],
    ["1/(2-2)", "除数不能为 0"],
    ["process.exit()", '无法识别的字符 "p"（位置 1）'],
    ["2^3", '无法识别的字符 "^"（位置 2）'],
    ["1+😀", '无法识别的字符 "😀"（位置 3）'],
    ["", "表达式为空"],
    ["   ", "表达式为空"],
    ["(1+2", "缺少右括号：位置 1 的左括号没有配对"],
    ["1+2)", "多余的右括号（位置 4）"],
    ["1 2", '多余的内容 "2"（位置 3）'],
    ["(1 2)", '意外的 "2"（位置 4）'],
    ["1+", "表达式不完整，末尾缺少数字"],
    ["*3", '意外的 "*"（位置 1）'],
    ["()", '意外的 ")"（位置 2）'],
    ["1.2.3", '数字格式不对 "1.2.3"（位置 1）'],
    [".", '数字格式不对 "."（位置 1）'],
  ])("%j → %s", (expression, message) => {
    expect(() => evaluate(expression)).toThrow(message);
  });
});

describe("calc 工具经由注册表执行", () => {
  it("正常结果是格式化后的数字", async () => {
    expect(await runCalc("17*38")).toEqual({ role: "toolResult", toolCallId: "t1", toolName: "calc", content: "646" });
    expect((await runCalc("0.1+0.2")).content).toBe("0.3");
    expect((await runCalc("7/2")).content).toBe("3.5");
  });

  it("process.exit() 只是一条错误结果，进程安然无恙", async () => {
    const result = await runCalc("process.exit()");
    expect(result.isError).toBe(true);
    expect(result.content).toBe('工具 calc 出错：无法识别的字符 "p"（位置 1）');
  });

  it("1/0 是错误结果，不是崩溃", async () => {
    const result = await runCalc("1/0");
    expect(result).toMatchObject({ isError: true, content: "工具 calc 出错：除数不能为 0" });
  });

  it("参数 schema 不接受多余的键", () => {
    expect(calcTool.parameters).toMatchObject({ required: ["expression"], additionalProperties: false });
  });
});
