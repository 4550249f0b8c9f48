/**
 * 被抛出的不一定是 Error：几种描述它们时最容易再崩一次的值。[说明, 造出它的函数]——
 * 每次新造一个，Proxy 的陷阱才不会被前一个测试用掉。
 */
export const HOSTILE_VALUES: Array<[string, () => unknown]> = [
  ["Object.create(null)", () => Object.create(null)],
  ["message 一读就抛的 Error", () => Object.defineProperty(new Error("x"), "message", { get() { throw new Error("getter 也崩了"); } })],
  ["每个陷阱都抛的 Proxy", () => new Proxy({}, new Proxy({}, { get: () => () => { throw new Error("陷阱"); } }))],
  ["toString 会抛的对象", () => ({ toString() { throw new Error("toString 崩了"); } })],
  ["Symbol", () => Symbol("坏")],
];
