/**
 * 两个适配器共用的骨架：发请求、读 SSE、把任何失败都变成一条 done 消息。
 * StreamFn 的契约「不 throw、不 reject」就守在这一个 try/catch 里。
 * 拿到 2xx 之前的失败由 requestWithRetry 悄悄重试：那时还一个字都没交给调用方。
 */
import { reportChunks, reportHeaders } from "../guard.js";
import { describeError } from "../guards/shown.js";
import { readSse, type SseEvent } from "../sse.js";
import type { StopReason, StreamEvent, StreamOptions } from "../types.js";
import type { ConnectionConfig } from "./config.js";
import { guardedFetch } from "./guards/network.js";
import { querySecrets } from "./guards/settings.js";
import { eventStreamBody } from "./guards/stream.js";
import { describeNetworkError, describeNotEventStream, describeStreamCut } from "./http-error.js";
import { requestWithRetry } from "./http-retry.js";
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
    // 设置写错就在这里抛；发出去的请求自己跟同源的重定向，密钥不出本源。
    // 模型超时的空闲时钟（guard.ts）：响应头到了报一次，下面读正文时每来一块字节再报一次
    const send = guardedFetch(config, wire.path, reportHeaders(config.fetch ?? fetch, options?.onActivity));
    const body = JSON.stringify(wire.body());
    stage = "connect";
    // signal 一路交给 fetch：还没等到响应时按下 Ctrl+C，连接当场断开；重试前的等待也会被它打断
    const outcome = await requestWithRetry(
      () =>
        send({
          method: "POST",
          headers: { "content-type": "application/json", accept: "text/event-stream", ...wire.headers },
          body,
          signal,
        }),
      { signal, maxRetries: config.maxRetries, maxRetryDelayMs: config.maxRetryDelayMs, onWait: config.onRetryWait },
    );
    if (outcome.kind !== "response") {
      // 取消不是错误，不带 errorMessage
      yield { type: "done", message: outcome.kind === "aborted" ? reply.finish("aborted") : reply.finish("error", outcome.errorMessage) };
      return;
    }
    // 从这里起不再重试：文字一旦交给调用方，就收不回来了
    const response = outcome.response;
    stage = "read";
    // 响应体先过防线（字符集、大小上限）；没有正文、200 却不是事件流时是 undefined
    const events = eventStreamBody(response, response.body && reportChunks(response.body, options?.onActivity));
    if (!events) {
      // 不是事件流的 200 是确定性的：同一个地址再问一次还是它，不重试（分类器认得「不是事件流」）
      const errorMessage = response.body ? await describeNotEventStream(response) : "响应没有正文";
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

