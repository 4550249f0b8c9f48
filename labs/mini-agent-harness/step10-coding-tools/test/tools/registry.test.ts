import { describe, expect, it, vi } from "vitest";
import { calcTool } from "../../src/tools/calc.js";
import { createBuiltinTools } from "../../src/tools/index.js";
import { ToolRegistry, type ToolDefinition } from "../../src/tools/types.js";

const context = { cwd: "." };

describe("createBuiltinTools", () => {
  it("注册 calc、read_file 与照 Pi 加的 write、edit、bash，顺序固定", () => {
    const registry = createBuiltinTools();
    expect(registry.names()).toEqual(["calc", "read_file", "write", "edit", "bash"]);
    expect(registry.specs().map((spec) => spec.name)).toEqual(["calc", "read_file", "write", "edit", "bash"]);
  });

  it("每次都是新的注册表，互不影响", () => {
    expect(createBuiltinTools()).not.toBe(createBuiltinTools());
  });
});

describe("ToolRegistry", () => {
  it("未注册的工具变成错误结果", async () => {
    const result = await createBuiltinTools().execute({ type: "toolCall", id: "x", name: "nope", arguments: {} }, context);
    expect(result).toEqual({ role: "toolResult", toolCallId: "x", toolName: "nope", content: "未注册的工具：nope", isError: true });
  });

  it("重名注册直接抛错", () => {
    const registry = createBuiltinTools();
    expect(() => registry.register(calcTool)).toThrow("工具名重复：calc");
  });

  it("工具抛出的异常变成错误结果", async () => {
    const registry = new ToolRegistry();
    registry.register({
      name: "boom",
      description: "总是失败",
      parameters: { type: "object", properties: {} },
      execute() {
        throw new Error("炸了");
      },
    });
    const result = await registry.execute({ type: "toolCall", id: "b", name: "boom", arguments: {} }, context);
    expect(result).toMatchObject({ isError: true, content: "工具 boom 出错：炸了" });
  });

  it("参数不合格时根本不会调用 execute", async () => {
    const execute = vi.fn<ToolDefinition["execute"]>(() => ({ content: "不该到这里" }));
    const registry = new ToolRegistry();
    registry.register({ ...calcTool, execute });
    const call = (args: Record<string, unknown>) => registry.execute({ type: "toolCall", id: "c", name: "calc", arguments: args }, context);

    expect(await call({})).toMatchObject({ isError: true, content: "参数不合法：缺少必填参数 expression" });
    expect(await call({ expression: 42 })).toMatchObject({ isError: true, content: "参数不合法：参数 expression 应为 string，实际是 number" });
    expect(await call({ expression: "1", foo: 1 })).toMatchObject({ isError: true, content: "参数不合法：不认识的参数 foo" });
    expect(execute).not.toHaveBeenCalled();
  });
});
