/**
 * 所有 vitest 配置共用的 setup（根目录、每个步骤、两个工具包、变异测试）：堵上 toThrow 的一个洞。
 *
 * vitest 的 `toThrow("文字")`、`toThrow(/正则/)` 在抛出 `undefined`、`null` 时也算通过
 * （vitest-dev/vitest#7260）：断言写的是「报错里有这句话」，代码却什么都没说。
 * 这里让它们只认 Error（含子类、DOMException、别的 realm 里的 Error）。
 *
 * 真要断言抛出的不是 Error，就把那个值写明（显式的选择，读测试的人一眼看得出）：
 *   `toThrow(expect.stringMatching(/…/))`（抛出字符串）、`toThrow({ code: 1 })`（抛出对象）——
 *   vitest 原有的按值比较的写法，本来就不受这个洞影响；抛出 undefined、null 这类假值时，
 *   用 try/catch 接住再 `expect(caught).toBe(…)`。
 * 不带参数的 `toThrow()`、传类的 `toThrow(TypeError)` 和 `.not.toThrow(…)` 不变。
 */
import { types } from "node:util";
import { chai } from "vitest";

const WRAPPED = Symbol.for("mini-agent-harness.strict-to-throw");

/** 抛出的值是不是 Error：instanceof 之外再认别的 realm（vm、worker）里造的 Error */
function isError(value: unknown): value is Error {
  return value instanceof Error || types.isNativeError(value);
}

function describeValue(value: unknown): string {
  if (typeof value === "string") return `字符串 ${JSON.stringify(value)}`;
  if (value === null || typeof value !== "object") return String(value);
  return `一个 ${Object.prototype.toString.call(value).slice(8, -1)}（不是 Error）`;
}

interface Flags {
  flag(obj: object, key: string, value?: unknown): unknown;
}

function install(): void {
  const proto = chai.Assertion.prototype as unknown as Record<PropertyKey, unknown>;
  if (proto[WRAPPED] === true) return; // isolate: false 时 setup 在同一个 worker 里每个文件跑一次：只包一层
  proto[WRAPPED] = true;
  chai.use((_chai, utils: Flags & { overwriteMethod: typeof chai.util.overwriteMethod }) => {
    for (const name of ["toThrow", "toThrowError"]) {
      utils.overwriteMethod(chai.Assertion.prototype, name, (original: (...args: unknown[]) => unknown) => {
        return function (this: object, ...args: unknown[]) {
          const expected = args[0];
          const byText = typeof expected === "string" || expected instanceof RegExp;
          if (!byText || utils.flag(this, "negate") === true) return original.apply(this, args);
          const promise = utils.flag(this, "promise");
          const subject = utils.flag(this, "object");
          let threw = false;
          let thrown: unknown;
          if (promise === "rejects") {
            threw = true;
            thrown = subject;
          } else if (promise !== "resolves" && typeof subject === "function") {
            // 只调用一次：原来的断言拿到的是一个重放同样结果的函数，被测代码的副作用不会发生两次
            let returned: unknown;
            try {
              returned = (subject as () => unknown)();
            } catch (error) {
              threw = true;
              thrown = error;
            }
            utils.flag(this, "object", threw ? () => { throw thrown; } : () => returned);
          }
          if (threw && !isError(thrown)) {
            throw new chai.AssertionError(
              `toThrow(${expected instanceof RegExp ? String(expected) : JSON.stringify(expected)}) 只认 Error，抛出的却是 ${describeValue(thrown)}；` +
                "真要断言这个值就把它写明，例如 toThrow(expect.stringMatching(…))（见 scripts/vitest/strict-to-throw.ts）",
            );
          }
          return original.apply(this, args);
        };
      });
    }
  });
}

install();
