/**
 * 两个适配器共用的骨架：发请求、读 SSE、把任何失败都变成一条 done 消息。
 * StreamFn 的契约「不 throw、不 reject」就守在这一个 try/catch 里。
 */
import { describeError } from "../guards/shown.js";
import { readSse, type SseEvent } from "../sse.js";
import type { StopReason, StreamEvent, StreamOptions } from "../types.js";
import type { ConnectionConfig } from "./config.js";
import { guardedFetch } from "./guards/network.js";
import { querySecrets } from "./guards/settings.js";
import { eventStreamBody } from "./guards/stream.js";
import { describeHttpError, describeNetworkError, describeNotEventStream, describeStreamCut } from "./http-error.js";
import { ReplyBuilder } from "./reply.js";

/** 协议相关的那一半：怎么理解每个事件、读完以后怎么定结局。 */
export interface WireDecoder {
  /** 处理一个事件，更新 reply（要立刻显示的文字与推理由 reply 攒着，读完这个事件就交出去）。 */
  onEvent(event: SseEvent, reply: ReplyBuilder): void;
  /** 收到收尾的事件了吗（OpenAI 的 [DONE]、Anthropic 的 message_stop）。 */
  complete(): boolean;
  /** 流正常读完之后：模型是怎么结束的。 */
  end(): { stopReason: StopReason; errorMessage?: string };
}

/** 一种协议的请求：路径、自己的头、请求体，以及读响应用的解码器。 */
export interface WireRequest {
  /** 接在 baseUrl 后面的路径（如 /chat/completions）。 */
  path: string;
  headers: Record<string, string>;
  /** 延后到 try 里面再构造：连构造请求体出的错也不许逃出 StreamFn。 */
  body: () => unknown;
  decoder: WireDecoder;
}

export async function* streamRequest(config: ConnectionConfig, wire: WireRequest, options?: StreamOptions): AsyncGenerator<StreamEvent> {
  const signal = options?.signal;
  // 密钥与地址里的秘密：错误信息里出现就抹掉
  const reply = new ReplyBuilder([config.apiKey, ...querySecrets(config.baseUrl)]);
  let stage: "build" | "connect" | "read" = "build";
  try {
    // 设置写错就在这里抛；发出去的请求自己跟同源的重定向，密钥不出本源
    const send = guardedFetch(config, wire.path, config.fetch ?? fetch);
    const body = JSON.stringify(wire.body());
    stage = "connect";
    // signal 一路交给 fetch：还没等到响应时按下 Ctrl+C，连接当场断开
    const response = await send({
      method: "POST",
      headers: { "content-type": "application/json", accept: "text/event-stream", ...wire.headers },
      body,
      signal,
    });
    stage = "read";
    // 响应体先过防线（字符集、大小上限）；没有正文、200 却不是事件流时是 undefined
    const events = response.ok ? eventStreamBody(response) : undefined;
    if (!events) {
      const errorMessage =
        !response.ok ? await describeHttpError(response)
        : !response.body ? "响应没有正文"
        : await describeNotEventStream(response);
      yield { type: "done", message: signal?.aborted ? reply.finish("aborted") : reply.finish("error", errorMessage) };
      return;
    }
    for await (const event of readSse(events, signal)) {
      wire.decoder.onEvent(event, reply);
      yield* reply.takeDeltas();
      if (wire.decoder.complete()) break; // 收尾事件到了：之后连接再出什么错，都与这条回复无关
    }
    if (signal?.aborted) {
      yield { type: "done", message: reply.finish("aborted") };
      return;
    }
    const { stopReason, errorMessage } = wire.decoder.end();
    yield { type: "done", message: reply.finish(stopReason, errorMessage) };
  } catch (error) {
    // 取消与失败走同一个出口，区别只看 signal：取消不是错误，不带 errorMessage
    if (signal?.aborted) {
      yield { type: "done", message: reply.finish("aborted") };
    } else {
      const errorMessage =
        stage === "read" ? describeStreamCut(error)
        : stage === "connect" ? describeNetworkError(error)
        : `构造请求失败：${describeError(error)}`;
      yield { type: "done", message: reply.finish("error", errorMessage) };
    }
  }
}

