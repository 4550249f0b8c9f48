/**
 * providers/guards/settings.ts 的设置检查：每一句说明逐字核对：点名哪个设置、第几个字符、什么样的字符，
 * 引用地址时不照抄账号口令与查询串。config-errors.test.ts 走环境变量与命令行那条路，只看关键词；
 * 这里直接调用三个函数，一个字说错了也能发现。
 */

import { describe, expect, it } from "vitest";

import { apiKeyProblem, baseUrlProblem, checkConnectionSettings } from "../src/providers/guards/settings.js";

const NAME = "HARNESS_BASE_URL";

describe("baseUrlProblem：一句话说清楚地址哪里错", () => {
  it.each([
    ["好的地址", "https://api.example.com/v1"],
    ["本机的 http", "http://127.0.0.1:11434/v1"],
  ])("%s：没有问题", (_label, url) => {
    expect(baseUrlProblem(NAME, url)).toBeUndefined();
  });

  it.each([
    ["行尾的注释", "http://h/v1 # 本机", `${NAME} 里有 #：环境变量里不能写注释，# 和它后面的内容会被当成地址的一部分，请删掉（http://h/v1 # 本机）`],
    ["看不见的字符", "http://h\u200b/v1", `${NAME} 的第 9 个字符是看不见的 U+200B：多半是复制时带进来的，请删掉它`],
    ["控制字符", "http://h/\x07", `${NAME} 的第 10 个字符是看不见的 U+0007：多半是复制时带进来的，请删掉它`],
    ["全角冒号", "https：//h", `${NAME} 的第 6 个字符是「：」（U+FF1A，全角）：请改成半角字符`],
    ["全角空格", "http://h/\u3000", `${NAME} 的第 10 个字符是空白 U+3000：请改成半角字符`],
    ["引号", '"http://h/v1"', `${NAME} 里有引号 "：环境变量的值不用加引号，请去掉（"http://h/v1"）`],
    ["弯引号", "http://h/“v1”", `${NAME} 里有引号 “：环境变量的值不用加引号，请去掉（http://h/“v1”）`],
    ["直角引号也是全角字符", "http://h/「v1」", `${NAME} 的第 10 个字符是「「」（U+300C，全角）：请改成半角字符`],
    ["空格", "http://h/a b", `${NAME} 里有空格：请删掉（http://h/a b）`],
    ["换行", "http://h/a\nb", `${NAME} 的第 11 个字符是看不见的 U+000A：多半是复制时带进来的，请删掉它`],
    ["没有协议", "api.example.com/v1", `${NAME} 要以 http:// 或 https:// 开头，收到的是：api.example.com/v1`],
    ["别的协议", "ftp://h/v1", `${NAME} 要以 http:// 或 https:// 开头，收到的是：ftp://h/v1`],
    ["只有账号", "http://me@h/v1", `${NAME} 里带着账号口令（user:password@）：fetch 不会发送它们，密钥请放进 HARNESS_API_KEY，地址里去掉这一段`],
    ["只有口令", "http://:pw@h/v1", `${NAME} 里带着账号口令（user:password@）：fetch 不会发送它们，密钥请放进 HARNESS_API_KEY，地址里去掉这一段`],
  ])("%s", (_label, url, message) => {
    expect(baseUrlProblem(NAME, url)).toBe(message);
  });

  it.each([
    ["账号口令", "http://me:s3cret@h/v1 #", "http://***@h/v1 #"],
    ["口令里有空格", "http://me:s3 cret@h/v1 #", "http://***@h/v1 #"],
    ["查询串", "http://h/v1?key=s3cret #", "http://h/v1?…"],
    ["查询串后面还有一行", "http://h/v1?key=s3cret\nmore #", "http://h/v1?…"],
    ["两样都有", "http://me:s3cret@h/v1?key=s3cret #", "http://***@h/v1?…"],
  ])("引用地址时不照抄秘密：%s", (_label, url, quoted) => {
    const message = baseUrlProblem(NAME, url);
    expect(message).toBe(`${NAME} 里有 #：环境变量里不能写注释，# 和它后面的内容会被当成地址的一部分，请删掉（${quoted}）`);
    expect(message).not.toContain("s3");
  });
});

describe("apiKeyProblem：只说第几个字符、什么样的字符，不打印密钥", () => {
  const KEY = "HARNESS_API_KEY";

  it.each([
    ["普通的密钥", "sk-abc_DEF.123~"],
    ["空串", ""],
    ["中间的引号不算两头", "sk-a\"b"],
  ])("%s：没有问题", (_label, key) => {
    expect(apiKeyProblem(KEY, key)).toBeUndefined();
  });

  it.each([
    ["两头的引号", '"sk-abc"'],
    ["只有开头的引号", "'sk-abc"],
    ["只有结尾的引号", "sk-abc”"],
  ])("%s", (_label, key) => {
    expect(apiKeyProblem(KEY, key)).toBe(`${KEY} 两头有引号：环境变量的值不用加引号，请去掉`);
  });

  it.each([
    ["空格", "sk-ab c", "空白 U+0020"],
    ["制表符", "sk-ab\tc", "看不见的 U+0009"],
    ["零宽空格", "sk-ab\u200bc", "看不见的 U+200B"],
    ["汉字", "sk-ab密c", "「密」（U+5BC6）"],
    ["全角字母", "sk-abＡc", "「Ａ」（U+FF21，全角）"],
    ["码位超出 BMP 的字符", "sk-ab😀c", "「😀」（U+1F600）"],
  ])("%s 在第 6 个字符", (_label, key, described) => {
    const message = apiKeyProblem(KEY, key);
    expect(message).toBe(`${KEY} 的第 6 个字符是${described}：密钥只由英文字母、数字与符号组成，多半是复制时带进来的，请重新复制`);
  });
});

describe("checkConnectionSettings：代码里直接造的设置，同样的规矩", () => {
  const check = (baseUrl: unknown, apiKey: unknown): string | undefined => {
    try {
      checkConnectionSettings({ baseUrl, apiKey });
      return undefined;
    } catch (error) {
      expect(error).toBeInstanceOf(Error);
      return (error as Error).message;
    }
  };

  it("好的设置不抛；没有密钥（空串）不查密钥", () => {
    expect(check("https://h/v1", "sk-abc")).toBeUndefined();
    expect(check("https://h/v1", "")).toBeUndefined();
  });

  it.each([
    ["地址是数字", 5, "sk", "baseUrl 要是一个字符串，收到的是 number"],
    ["地址没给", undefined, "sk", "baseUrl 要是一个字符串，收到的是 undefined"],
    ["密钥是 null", "https://h/v1", null, "apiKey 要是一个字符串（没有密钥就写空串），收到的是 object"],
    ["密钥是数字", "https://h/v1", 42, "apiKey 要是一个字符串（没有密钥就写空串），收到的是 number"],
    ["地址写错：说明里点名 baseUrl", "h/v1", "sk", "baseUrl 要以 http:// 或 https:// 开头，收到的是：h/v1"],
    ["密钥写错：说明里点名 apiKey", "https://h/v1", "sk ab", "apiKey 的第 3 个字符是空白 U+0020：密钥只由英文字母、数字与符号组成，多半是复制时带进来的，请重新复制"],
  ])("%s", (_label, baseUrl, apiKey, message) => {
    expect(check(baseUrl, apiKey)).toBe(message);
  });
});
