// npm test 的摘要（scripts/vitest/short-reporter.ts）：跳过的测试每组一行，说出为什么跳过
// （issue 49 第 9 条：摘要里说 6 个代理测试跳过了，却没说是因为 Node 20 没有 NODE_USE_ENV_PROXY）。
import { describe, expect, it } from "vitest";
import { formatSkips, skipReason } from "../vitest/short-reporter.ts";

describe("跳过的测试：每组一行，带原因", () => {
  it("文件加载时打印的「[跳过] …」就是那个文件里被跳过的测试的原因；同一文件、同一原因只占一行", () => {
    const reasons = new Map([["labs/x/test/proxy.test.ts", ["经过代理的三个用例：Node v20.20.2 没有 NODE_USE_ENV_PROXY"]]]);
    const skipped = [{ file: "labs/x/test/proxy.test.ts" }, { file: "labs/x/test/proxy.test.ts" }, { file: "labs/x/test/proxy.test.ts" }];
    expect(formatSkips(skipped, reasons, false)).toEqual(["labs/x/test/proxy.test.ts：3 个——经过代理的三个用例：Node v20.20.2 没有 NODE_USE_ENV_PROXY"]);
  });

  it("测试自己给的原因优先；不同原因各占一行；没给原因的照实说；按名字过滤掉的说是 -t 没选上", () => {
    const skipped = [{ file: "a.test.ts", note: "这台机器没有 IPv6 的 ::1" }, { file: "a.test.ts" }, { file: "b.test.ts" }];
    expect(formatSkips(skipped, new Map(), false)).toEqual(["a.test.ts：1 个——这台机器没有 IPv6 的 ::1", "a.test.ts：1 个——没有给出原因", "b.test.ts：1 个——没有给出原因"]);
    expect(formatSkips([{ file: "b.test.ts" }], new Map(), true)).toEqual(["b.test.ts：1 个——不在 -t 选中的测试里"]);
  });

  it("认得「[跳过] …」与「跳过…」两种写法，别的日志不算", () => {
    expect(skipReason("[跳过] git 来源的步骤对比：这台机器上没有 git")).toBe("git 来源的步骤对比：这台机器上没有 git");
    expect(skipReason("跳过「毕业练习」的用例：缺 Node 22.19\n")).toBe("「毕业练习」的用例：缺 Node 22.19");
    expect(skipReason("服务器已启动")).toBeUndefined();
  });
});
