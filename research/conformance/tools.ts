/**
 * 两边共用的工具：同一个名字、同一份参数 schema、同一段执行代码，
 * 再分别包成 Pi 的 AgentTool 与 step09 的 ToolDefinition。差异只能来自循环本身。
 */

export interface NeutralTool {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
  run(args: Record<string, unknown>, signal: AbortSignal | undefined): Promise<string>;
}

export interface ToolHooks {
  /** wait 工具开始执行时调用：取消场景在这里按下取消。 */
  onWaitStarted?: () => void;
}

export function neutralTools(hooks: ToolHooks = {}): NeutralTool[] {
  return [
    {
      name: "calc",
      description: "计算一个算式",
      parameters: {
        type: "object",
        properties: { expression: { type: "string" } },
        required: ["expression"],
        additionalProperties: false,
      },
      run: async (args) => `算式 ${String(args.expression)} 算好了`,
    },
    {
      name: "boom",
      description: "总是抛出异常",
      parameters: { type: "object", properties: {} },
      run: async () => {
        throw new Error("炸了");
      },
    },
    {
      name: "wait",
      description: "一直等，直到被取消",
      parameters: { type: "object", properties: { label: { type: "string" } }, required: ["label"] },
      run: (_args, signal) =>
        new Promise<string>((_resolve, reject) => {
          const stop = (): void => reject(new Error("等待被取消"));
          if (signal?.aborted) return stop();
          signal?.addEventListener("abort", stop, { once: true });
          hooks.onWaitStarted?.();
        }),
    },
  ];
}
