/**
 * 内置工具的总入口：宿主启动时调用一次，拿到注册好内置工具的注册表。
 * 扩展之后再往同一个注册表里注册自己的工具；重名会直接报错。
 */

import { bashTool } from "./bash.js";
import { calcTool } from "./calc.js";
import { editTool } from "./edit.js";
import { readFileTool } from "./read-file.js";
import { ToolRegistry } from "./types.js";
import { writeTool } from "./write.js";

/**
 * 新建注册表并放入内置工具。顺序固定，交给模型的工具列表也就稳定：
 * 先是前几章的 calc、read_file，再是这一章照 Pi 加的 write、edit、bash（Pi 的四个默认工具是 read、bash、edit、write）。
 */
export function createBuiltinTools(): ToolRegistry {
  const registry = new ToolRegistry();
  registry.register(calcTool);
  registry.register(readFileTool);
  registry.register(writeTool);
  registry.register(editTool);
  registry.register(bashTool);
  return registry;
}
