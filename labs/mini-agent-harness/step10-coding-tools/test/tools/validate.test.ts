import { describe, expect, it } from "vitest";
import { validateArguments } from "../../src/tools/validate.js";

const schema = {
  type: "object",
  properties: {
    expression: { type: "string" },
    count: { type: "integer" },
    ratio: { type: "number" },
    verbose: { type: "boolean" },
    options: { type: "object" },
    items: { type: "array" },
    anything: {}, // 没写 type：什么都行
  },
  required: ["expression"],
  additionalProperties: false,
};

describe("validateArguments", () => {
  it("合格的参数返回 undefined", () => {
    expect(validateArguments(schema, { expression: "1+1" })).toBeUndefined();
    expect(
      validateArguments(schema, {
        expression: "x", count: 3, ratio: 0.5, verbose: false, options: {}, items: [1], anything: null,
      }),
    ).toBeUndefined();
  });

  it.each([null, "1+1", 42, [1, 2], undefined])("参数本身不是对象：%j", (args) => {
    expect(validateArguments(schema, args)).toBe("参数必须是一个对象");
  });

  it("缺少必填参数", () => {
    expect(validateArguments(schema, {})).toBe("缺少必填参数 expression");
    expect(validateArguments(schema, { expression: undefined })).toBe("缺少必填参数 expression");
  });

  it("原型链上的名字不算传了参数", () => {
    expect(validateArguments({ type: "object", required: ["toString"] }, {})).toBe("缺少必填参数 toString");
  });

  it.each([
    [{ expression: 1 }, "参数 expression 应为 string，实际是 number"],
    [{ expression: "x", count: 1.5 }, "参数 count 应为 integer，实际是 number"],
    [{ expression: "x", ratio: "1" }, "参数 ratio 应为 number，实际是 string"],
    [{ expression: "x", verbose: "yes" }, "参数 verbose 应为 boolean，实际是 string"],
    [{ expression: "x", options: [] }, "参数 options 应为 object，实际是 array"],
    [{ expression: "x", options: null }, "参数 options 应为 object，实际是 null"],
    [{ expression: "x", items: {} }, "参数 items 应为 array，实际是 object"],
  ])("类型不对：%j", (args, message) => {
    expect(validateArguments(schema, args)).toBe(message);
  });

  it("additionalProperties: false 时拒绝不认识的参数", () => {
    expect(validateArguments(schema, { expression: "x", foo: 1 })).toBe("不认识的参数 foo");
  });

  it("没写 additionalProperties 时放过多余的参数", () => {
    const open = { type: "object", properties: { a: { type: "string" } } };
    expect(validateArguments(open, { a: "x", foo: 1 })).toBeUndefined();
  });
});
