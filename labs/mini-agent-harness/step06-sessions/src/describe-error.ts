/**
 * 把一个外来的值（你写的代码抛出的、Node 交来的错误）说成一句话，永远返回字符串、永远不抛。
 * 被抛出的不一定是 Error：Object.create(null) 没有 toString，message 可能是会抛错的 getter，
 * Proxy 的每个陷阱都可能抛错，Symbol 放进模板字符串就抛 TypeError。
 * 在 catch 块里描述错误时再抛一次，就是从宿主自己的防线里崩掉，所以每一步都兜住。
 */
export function describeError(value: unknown): string {
  try {
    const text: unknown = value instanceof Error ? value.message : value;
    // String() 认得 Symbol（模板字符串不认）；它调用的 toString 也可能抛，由下面接住
    return typeof text === "string" ? text : String(text);
  } catch {
    // typeof 不经过任何陷阱，对任何值都安全
    return `（无法转成文字的值：${typeof value}）`;
  }
}

/**
 * 外来错误值上的错误码（ENOENT、EEXIST……）：不是字符串、读不出来就是 undefined，永远不抛。
 * 读一个属性也会抛：Proxy 的 get 陷阱、会抛错的 getter；null 与 undefined 上根本没有属性。
 */
export function errorCode(value: unknown): string | undefined {
  try {
    const code: unknown = (value as { code?: unknown } | null | undefined)?.code;
    return typeof code === "string" ? code : undefined;
  } catch {
    return undefined;
  }
}
