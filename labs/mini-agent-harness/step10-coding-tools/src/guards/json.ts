/**
 * 外来的 JSON：JSON.parse 多深都解析得出来，可之后递归处理它的地方（JSON.stringify、逐层的形状检查）会用完调用栈，
 * 而一个嵌套一万层的值只有几十 KB。真实的数据不过十来层，所以先数层数，太深的就不收。
 * 模型服务发来的每个数据块还要对形状（parseChunk）：不合的变成一句说明，而不是解码器读到一半抛出 TypeError。
 */
import type { StopReason } from "../types.js";
import { tryOr } from "./shown.js";

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

/** 协议里一个字段该长什么样：字符串、非负整数（token 数、index）、[元素的样子]，或 { 各字段的样子 }。 */
export type Shape = "string" | "count" | readonly [Shape] | { readonly [field: string]: Shape };

/** 照着 Shape 推出来的 TypeScript 类型：一份声明既管运行时的检查，也管类型。字段都可能缺省或是 null。 */
export type Parsed<S> = S extends "string" ? string : S extends "count" ? number
  : S extends readonly [infer Item] ? Array<Parsed<Item>> : { -readonly [K in keyof S]?: Parsed<S[K]> | null };

/** 解析一个事件的 data，按 shape 检查我们会读的字段；不合的返回一句说明（JSON 里的 1e400 解析出来是 Infinity：数字也查）。 */
export function parseChunk<S extends Shape>(data: string, shape: S): Parsed<S> | string {
  const value: unknown = tryOr(undefined, () => JSON.parse(data)); // JSON.parse 从不交出 undefined
  if (value === undefined) return `无法解析的流数据：${data.slice(0, 100)}`;
  const problem = tooDeep(value) ?? shapeProblem(value, shape, "数据");
  return problem ? `协议错误：${problem}：${data.slice(0, 100)}` : (value as Parsed<S>);
}

function shapeProblem(value: unknown, shape: Shape, path: string): string | undefined {
  if (typeof shape === "string") {
    const ok = shape === "string" ? typeof value === "string" : Number.isSafeInteger(value) && (value as number) >= 0;
    return ok ? undefined : `${path} 应为${shape === "string" ? "字符串" : "非负整数"}`;
  }
  const list = Array.isArray(shape);
  if (typeof value !== "object" || value === null || Array.isArray(value) !== list) return `${path} 应为${list ? "数组" : "对象"}`;
  if (list) return (value as unknown[]).map((item, i) => shapeProblem(item, (shape as readonly [Shape])[0], `${path}[${i}]`)).find(Boolean);
  // 对象的字段缺了或是 null 都可以：兼容服务器各有省略
  return Object.entries(shape).map(([field, inner]) => {
    const item = (value as Record<string, unknown>)[field];
    return item == null ? undefined : shapeProblem(item, inner, `${path}.${field}`);
  }).find(Boolean);
}

/** 服务器说的结束原因换成我们的 StopReason。用 Map 而不是对象查表：原因是服务器给的字符串，"constructor" 不该查到什么。 */
export function mapStopReason(field: string, raw: string, table: ReadonlyMap<string, StopReason>): { stopReason: StopReason; errorMessage?: string } {
  const stopReason = table.get(raw);
  return stopReason ? { stopReason } : { stopReason: "error", errorMessage: `模型异常结束：${field}=${raw}` };
}
