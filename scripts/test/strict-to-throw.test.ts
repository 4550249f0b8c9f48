import { describe, expect, it } from "vitest";

// scripts/vitest/strict-to-throw.ts：toThrow(文字|正则) 只认 Error
describe("toThrow(文字|正则) 只认 Error", () => {
  const rule = /只认 Error/;

  it("抛出 undefined、null、字符串、普通对象时，toThrow(文字) 与 toThrow(正则) 都不通过", () => {
    for (const value of [undefined, null, "x", { message: "x" }, 0]) {
      expect(() => expect(() => { throw value; }).toThrow("x")).toThrow(rule);
      expect(() => expect(() => { throw value; }).toThrowError(/x/)).toThrow(rule);
    }
  });

  it("rejects.toThrow 同样只认 Error", async () => {
    await expect(expect(Promise.reject(undefined)).rejects.toThrow("x")).rejects.toThrow(rule);
    await expect(Promise.reject(new Error("x"))).rejects.toThrow("x");
  });

  it("抛出 Error（含子类、DOMException）时照常按文字与正则比较", () => {
    expect(() => { throw new TypeError("坏了：x"); }).toThrow("坏了");
    expect(() => { throw new DOMException("中止", "AbortError"); }).toThrow(/中止/);
    expect(() => expect(() => { throw new Error("别的"); }).toThrow("x")).toThrow(/别的/);
  });

  it("被测函数只调用一次", () => {
    let calls = 0;
    expect(() => { calls++; throw new Error("x"); }).toThrow("x");
    expect(calls).toBe(1);
    expect(() => expect(() => { calls++; }).toThrow("x")).toThrow();
    expect(calls).toBe(2);
  });

  it("显式写明的值、不带参数与 .not 不受影响", () => {
    expect(() => { throw "boom"; }).toThrow(expect.stringMatching(/bo/));
    expect(() => { throw { code: 7 }; }).toThrow({ code: 7 });
    expect(() => { throw new RangeError("r"); }).toThrow(RangeError);
    expect(() => undefined).not.toThrow("x");
  });
});
