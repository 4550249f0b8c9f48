/**
 * 没有换行结尾、又解析不了的最后一行：是本程序写到一半留下的（截掉，半行另存 .bak），还是学习者改过的（原样拒绝）？
 * 判断全在 looksLikeTornWrite：一段不带空白、还没写完的 JSON 的前半截才算写到一半。这里在测试进程里逐个记号地试。
 */
import { describe, expect, it } from "vitest";

import { looksLikeTornWrite } from "../src/guards/session-tail.js";

/** 本程序写一行时的开头，后面接着 content 的值。 */
const HEAD = '{"type":"message","id":"e2","parentId":"e1","message":{"role":"user","content":';

describe("looksLikeTornWrite：本程序写出的一行，截在任何一个字符处都算写到一半", () => {
  it("一条什么都有的条目（转义、数字、true/false/null、空对象与空数组、嵌套）：每个前缀都是，整行不是", () => {
    const message = {
      role: "assistant",
      content: [
        { type: "text", text: "引号\" 反斜杠\\ 斜杠/ \b\f\n\r\t 控制符\u0001 é 😀" },
        { type: "toolCall", id: "c1", name: "calc", arguments: { n: -1.5e3, m: 0, e: 2e-7, ok: true, no: false, none: null, list: [1, [], {}, [{ a: "b" }]], empty: {} } },
      ],
      stopReason: "toolUse",
    };
    // 和 session-write.ts 写的一样：一个条目一次 JSON.stringify，不带空白
    const line = JSON.stringify({ type: "message", id: "e2", parentId: "e1", message });
    expect(line.startsWith('{"type":"message","id":"e2"')).toBe(true);
    for (let end = 1; end < line.length; end++) expect([end, looksLikeTornWrite(line.slice(0, end))]).toEqual([end, true]);
    expect(looksLikeTornWrite(line)).toBe(false);
  });

  it.each([
    ["字符串里的转义写了一半", `${HEAD}"一\\u00`],
    ["只写了反斜杠", `${HEAD}"一\\`],
    ["负号", `${HEAD}-`],
    ["小数点", `${HEAD}1.`],
    ["指数", `${HEAD}1e`],
    ["指数的符号", `${HEAD}1E+`],
    ["true 的一半", `${HEAD}tr`],
    ["false 的一半", `${HEAD}fals`],
    ["null 的一半", `${HEAD}nu`],
    ["数组里的数字还没写完", `${HEAD}[1,-2.`],
    ["数组里的下一个值", `${HEAD}[1,`],
    ["对象里的下一个键", `${HEAD}{"a":1,`],
    ["键写了一半", `${HEAD}{"a`],
    ["键后面的冒号", `${HEAD}{"a":`],
    ["空数组之后", `${HEAD}[[],`],
    ["空对象之后", `${HEAD}[{},{}`],
    ["只写了开头的几个字节", '{"ty'],
  ])("写到一半：%s", (_label, line) => {
    expect(looksLikeTornWrite(line)).toBe(true);
  });

  it.each([
    ["不是本程序的开头", '{"name":"x","type":"message"'],
    ["中间有空白", `${HEAD} "一"`],
    ["字符串里有没转义的控制字符", `${HEAD}"一\u0001`],
    ["不认识的转义", `${HEAD}"一\\x`],
    ["半个 \\u 之后不是十六进制", `${HEAD}"一\\u00g`],
    ["以 0 开头的数字", `${HEAD}01`],
    ["数字后面跟字母", `${HEAD}1x`],
    ["两个小数点", `${HEAD}1.2.`],
    ["拼错的 true", `${HEAD}tx`],
    ["拼错的 null", `${HEAD}nil`],
    ["值的位置上是逗号", `${HEAD},`],
    ["值的位置上是冒号", `${HEAD}:`],
    ["值的位置上是右括号", `${HEAD}}`],
    ["空数组用 } 关", `${HEAD}[}`],
    ["空对象用 ] 关", `${HEAD}{]`],
    ["数组里的值之后用 } 关", `${HEAD}[1}`],
    ["对象里的值之后用 ] 关", `${HEAD}{"a":1]`],
    ["键不是字符串", `${HEAD}{1:2`],
    ["键后面不是冒号", `${HEAD}{"a",`],
    ["冒号之后又是冒号", `${HEAD}{"a"::`],
    ["两个逗号", `${HEAD}[1,,`],
    ["逗号之后是右括号", `${HEAD}[1,]`],
    ["对象里逗号之后是右括号", `${HEAD}{"a":1,}`],
    ["两个值之间没有逗号", `${HEAD}"一""二"`],
    ["数组里两个值之间没有逗号", `${HEAD}[1 2`],
    ["写完了还有东西", `${HEAD}"一"}},`],
    ["键的位置上是没写完的数字", `${HEAD}{-1`],
    ["逗号的位置上是没写完的字符串", `${HEAD}[1"a`],
    ["冒号的位置上是没写完的字面量", `${HEAD}{"a"t`],
  ])("不是写到一半：%s", (_label, line) => {
    expect(looksLikeTornWrite(line)).toBe(false);
  });

  it.each([
    ['{"type":"mes', true],
    ['{"type":"message","id":"e2","parentId":"e1","message":{"role":"user","content":"一\\', true],
    ['{"type":"message","id":"e2","parentId":"e1","message":{"role":"assistant","content":[{"type":"toolCall","arguments":{"n":-1.', true],
    ['{"type":"message","id":"e2","parentId":"e1","message":{"role":"user","content":"一"},"x":tr', true],
    ['{"type":"message","id":"e2","parentId":"e1","message":{"role":"user","content":"一"}},', false],
    ['{"type":"message", "id":"e2"', false],
    ['{"type":"message","id":"e2","parentId":"e1","message":{"role":"user",,', false],
    ['{"type":"message","id":"e2","parentId":"e1","message":{"role":"user"]', false],
    ['{"name":"x"', false],
  ])("本程序写到一半的样子？%s → %s", (line, expected) => {
    expect(looksLikeTornWrite(line)).toBe(expected);
  });
});
