/**
 * 两个适配器共用的骨架：发请求、读 SSE、把任何失败都变成一条 done 消息。
 * StreamFn 的契约「不 throw、不 reject」就守在这一个 try/catch 里。
 */
import { readSse, type SseEvent } from "../sse.js";
import type { StopReason, StreamEvent } from "../types.js";
import { describeHttpError, describeNetworkError, describeNotEventStream, describeStreamCut } from "./http-error.js";
import { fetchSameOrigin } from "./redirect.js";
import { ReplyBuilder } from "./reply.js";

/** 协议相关的那一半：怎么理解每个事件、读完以后怎么定结局。 */
export interface WireDecoder {
  /** 处理一个事件，更新 reply（要立刻显示的文字与推理由 reply 攒着，读完这个事件就交出去）。 */
  onEvent(event: SseEvent, reply: ReplyBuilder): void;
  /** 流正常读完之后：模型是怎么结束的。 */
  end(): { stopReason: StopReason; errorMessage?: string };
}

export interface ProviderRequest {
  url: string;
  headers: Record<string, string>;
  /** 延后到 try 里面再构造：连构造请求体出的错也不许逃出 StreamFn。 */
  body: () => unknown;
  /** 密钥与地址里的秘密：错误信息里出现就抹掉。 */
  secrets: readonly string[];
  decoder: WireDecoder;
  signal?: AbortSignal | undefined;
  fetch?: typeof fetch | undefined;
}

export async function* streamRequest(req: ProviderRequest): AsyncGenerator<StreamEvent> {
  const { signal } = req;
  const reply = new ReplyBuilder(req.secrets);
  let stage: "build" | "connect" | "read" = "build";
  try {
    const body = JSON.stringify(req.body());
    stage = "connect";
    const doFetch = req.fetch ?? fetch;
    // signal 一路交给 fetch：还没等到响应时按下 Ctrl+C，连接当场断开。重定向自己处理，密钥不出本源
    const response = await fetchSameOrigin(doFetch, req.url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "text/event-stream", ...req.headers },
      body,
      signal,
    });
    stage = "read";
    if (!response.ok || !response.body || !isEventStream(response)) {
      const errorMessage =
        !response.ok ? await describeHttpError(response)
        : !response.body ? "响应没有正文"
        : await describeNotEventStream(response);
      yield { type: "done", message: signal?.aborted ? reply.finish("aborted") : reply.finish("error", errorMessage) };
      return;
    }
    for await (const event of readSse(response.body, signal)) {
      req.decoder.onEvent(event, reply);
      yield* reply.takeDeltas();
    }
    if (signal?.aborted) {
      yield { type: "done", message: reply.finish("aborted") };
      return;
    }
    const { stopReason, errorMessage } = req.decoder.end();
    yield { type: "done", message: reply.finish(stopReason, errorMessage) };
  } catch (error) {
    // 取消与失败走同一个出口，区别只看 signal：取消不是错误，不带 errorMessage
    if (signal?.aborted) {
      yield { type: "done", message: reply.finish("aborted") };
    } else {
      const errorMessage =
        stage === "read" ? describeStreamCut(error)
        : stage === "connect" ? describeNetworkError(error)
        : `构造请求失败：${error instanceof Error ? error.message : String(error)}`;
      yield { type: "done", message: reply.finish("error", errorMessage) };
    }
  }
}

/**
 * 200 却不是事件流：强制门户的登录页、网关的 JSON 错误、写错的 baseUrl……当成流去读只会得到一句「流中断」。
 * 没有 content-type 的放行（有的本地服务不写），写了别的类型的才拦下。
 */
function isEventStream(response: Response): boolean {
  const type = response.headers.get("content-type");
  return type === null || type.toLowerCase().includes("text/event-stream");
}

/** 协议里一个字段该长什么样：字符串、非负整数（token 数、index）、[元素的样子]，或 { 各字段的样子 }。 */
export type Shape = "string" | "count" | readonly [Shape] | { readonly [field: string]: Shape };

/** 照着 Shape 推出来的 TypeScript 类型：一份声明既管运行时的检查，也管类型。字段都可能缺省或是 null。 */
export type Parsed<S> = S extends "string" ? string : S extends "count" ? number
  : S extends readonly [infer Item] ? Array<Parsed<Item>> : { -readonly [K in keyof S]?: Parsed<S[K]> | null };

/**
 * 解析一个事件的 data，并按 shape 检查我们会读的字段：不是 JSON、不是对象（如 data: null）、字段类型不对，
 * 都返回一句说明，而不是让解码器读到一半抛出 TypeError、被当成「流中断」。
 * 数字先查范围再用：token 数与 index 必须是非负整数（JSON 里的 1e400 解析出来是 Infinity）。
 */
export function parseChunk<S extends Shape>(data: string, shape: S): Parsed<S> | string {
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch {
    return `无法解析的流数据：${data.slice(0, 100)}`;
  }
  const problem = shapeProblem(value, shape, "数据");
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
