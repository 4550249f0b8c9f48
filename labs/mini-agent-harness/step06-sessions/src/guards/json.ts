/**
 * 外来的 JSON：JSON.parse 多深都解析得出来，可之后递归处理它的地方（JSON.stringify、逐层的形状检查）会用完调用栈，
 * 而一个嵌套一万层的值只有几十 KB。真实的数据不过十来层，所以先数层数，太深的就不收。
 */

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** 工具参数里的对象与数组最多嵌套这么多层。 */
export const MAX_JSON_DEPTH = 100;

/** 会话文件的一行比它装着的工具参数多四层（条目、消息、content 数组、内容块）：读写会话时把它们算上。 */
export const MAX_ENTRY_DEPTH = MAX_JSON_DEPTH + 4;

/** 对象与数组嵌套超过 limit 层时返回一句说明，否则返回 undefined。自己不递归：再深也不会用完调用栈。 */
export function tooDeep(value: unknown, limit = MAX_JSON_DEPTH): string | undefined {
  const pending: Array<{ item: unknown; depth: number }> = [{ item: value, depth: 1 }];
  for (let next = pending.pop(); next; next = pending.pop()) {
    if (typeof next.item !== "object" || next.item === null) continue;
    if (next.depth > limit) return `嵌套超过 ${limit} 层（真实的数据不会这么深）`;
    for (const child of Object.values(next.item)) pending.push({ item: child, depth: next.depth + 1 });
  }
  return undefined;
}
