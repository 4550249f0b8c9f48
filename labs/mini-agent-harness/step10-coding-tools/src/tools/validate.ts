/**
 * 按 JSON Schema 的一个小子集校验工具参数。
 * 只支持本实验用到的写法：顶层 object、properties 里的基本 type、required、additionalProperties: false，
 * 以及数组的 items（每一项照样查，edit 的 edits 要用）。
 * 模型生成的参数不可信：先在这里拦下，各个工具的 execute 就不必再逐个检查类型。
 */

/** 是不是一个普通对象（不含 null 和数组）。 */
function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** 值的实际类型，用 JSON 的叫法：typeof 会把 null 和数组都说成 object，这里单独区分。 */
function typeName(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

/** value 是否符合 schema 里写的 type。 */
function matchesType(expected: unknown, value: unknown): boolean {
  switch (expected) {
    case "string": return typeof value === "string";
    case "number": return typeof value === "number";
    case "integer": return Number.isInteger(value);
    case "boolean": return typeof value === "boolean";
    case "object": return isRecord(value);
    case "array": return Array.isArray(value);
    default: return true; // 没写 type：不限制类型
  }
}

/**
 * 合格时返回 undefined；不合格时返回一句中文，说明第一个问题。
 * where 是嵌套时的位置前缀（如 "edits[0]."）：数组按 items 逐项再查，edit 的 edits 就是一组 { oldText, newText }。
 */
export function validateArguments(schema: Record<string, unknown>, args: unknown, where = ""): string | undefined {
  if (!isRecord(args)) return where === "" ? "参数必须是一个对象" : `参数 ${where.slice(0, -1)} 必须是一个对象`;
  const properties = isRecord(schema.properties) ? schema.properties : {};
  const required: unknown[] = Array.isArray(schema.required) ? schema.required : [];

  // 用 Object.hasOwn 而不是 args[name]：否则 "toString" 这类名字会从原型链上"找到"值
  for (const name of required) {
    if (!Object.hasOwn(args, String(name)) || args[String(name)] === undefined) return `缺少必填参数 ${where}${String(name)}`;
  }

  for (const [name, value] of Object.entries(args)) {
    if (value === undefined) continue; // 显式的 undefined 视同没传
    if (!Object.hasOwn(properties, name)) {
      if (schema.additionalProperties === false) return `不认识的参数 ${where}${name}`;
      continue;
    }
    const property = properties[name];
    const expected = isRecord(property) ? property.type : undefined;
    if (!matchesType(expected, value)) return `参数 ${where}${name} 应为 ${String(expected)}，实际是 ${typeName(value)}`;
    const items = isRecord(property) && isRecord(property.items) ? property.items : undefined;
    if (!items || !Array.isArray(value)) continue;
    for (const [index, item] of value.entries()) {
      const problem = validateItem(items, item, `${where}${name}[${index}]`);
      if (problem) return problem;
    }
  }
  return undefined;
}

/** 数组里的一项：先看类型，是对象就按它自己的 properties 再查一遍。 */
function validateItem(schema: Record<string, unknown>, item: unknown, where: string): string | undefined {
  if (!matchesType(schema.type, item)) return `参数 ${where} 应为 ${String(schema.type)}，实际是 ${typeName(item)}`;
  return isRecord(item) && schema.type === "object" ? validateArguments(schema, item, `${where}.`) : undefined;
}
