// 学习者能自己改正的问题（章节里的图有语法错误、版本对不上……）：只打印这一句说明，不打印调用栈。
export class BookError extends Error {
  override name = "BookError";
}

/** 构建失败时给人看的文字：预料之中的问题只有说明；真正的程序错误才带调用栈 */
export function describeFailure(error: unknown): string {
  if (error instanceof BookError) return error.message;
  try {
    return error instanceof Error ? (error.stack ?? error.message) : String(error);
  } catch {
    return "（无法显示的错误）";
  }
}
