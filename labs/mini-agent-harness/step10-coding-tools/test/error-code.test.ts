/**
 * errorCode 只交出字符串形式的错误码：别的类型、读不出来、根本没有属性，都是 undefined，自己从不抛。
 * 调用的一方拿它和 "ENOENT"、"EEXIST" 比较，一个数字或对象混进来就会走错分支。
 */

import { describe, expect, it } from "vitest";

import { errorCode } from "../src/guards/shown.js";

describe("errorCode", () => {
  it("Node 的错误：交出 code", () => {
    expect(errorCode(Object.assign(new Error("没有"), { code: "ENOENT" }))).toBe("ENOENT");
    expect(errorCode({ code: "EEXIST" })).toBe("EEXIST");
  });

  it.each([
    ["数字", { code: 2 }],
    ["对象", { code: { toString: () => "ENOENT" } }],
    ["String 包装对象", { code: new String("ENOENT") }],
    ["没有 code", new Error("普通")],
  ])("code 是%s：undefined", (_label, value) => {
    expect(errorCode(value)).toBeUndefined();
  });

  it.each([
    ["null", null],
    ["undefined", undefined],
    ["字符串", "ENOENT"],
  ])("%s 本身：undefined", (_label, value) => {
    expect(errorCode(value)).toBeUndefined();
  });

  it("读 code 就抛（getter、Proxy 陷阱）：undefined，不抛", () => {
    const getter = Object.defineProperty({}, "code", { get: () => { throw new Error("getter"); } });
    const proxy = new Proxy({}, { get: () => { throw new Error("陷阱"); } });
    expect(errorCode(getter)).toBeUndefined();
    expect(errorCode(proxy)).toBeUndefined();
  });
});
