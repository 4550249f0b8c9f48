/**
 * 工具的形状。
 * 这一步只有一个工具（calc），工具清单就是一个数组；step05 会换成真正的注册表。
 */

/** 工具执行的直接产出；循环再把它包装成一条 toolResult 消息。 */
export interface ToolOutput {
  content: string;
  isError?: boolean;
}

/** 一个工具：给模型看的说明 + 真正干活的 execute。 */
export interface ToolDefinition {
  /** 模型用它点名调用。 */
  name: string;
  /** 一句话说明：模型靠它判断什么时候该用这个工具。 */
  description: string;
  /** 参数的 JSON Schema（object 类型），模型照着它生成 arguments。 */
  parameters: Record<string, unknown>;
  /** 可以抛异常：executeTool 会把异常变成一条错误结果，而不是让循环崩掉。 */
  execute(args: Record<string, unknown>): ToolOutput | Promise<ToolOutput>;
}
