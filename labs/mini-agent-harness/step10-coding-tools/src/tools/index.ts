/**
 * 内置工具的总入口：宿主启动时调用一次，拿到注册好内置工具的注册表。
 * 扩展之后再往同一个注册表里注册自己的工具；重名会直接报错。
 */

import { calcTool } from "./calc.js";
import { readFileTool } from "./read-file.js";
import { ToolRegistry } from "./types.js";

/** 新建注册表并放入内置工具。顺序固定（先 calc 后 read_file），交给模型的工具列表也就稳定。 */
export function createBuiltinTools(): ToolRegistry {
  const registry = new ToolRegistry();
  registry.register(calcTool);
  registry.register(readFileTool);
  return registry;
}
