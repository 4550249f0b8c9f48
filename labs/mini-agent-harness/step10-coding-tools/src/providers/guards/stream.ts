/**
 * 服务器送来的东西不可信，读之前先过这几道：200 却不是事件流（强制门户的登录页、网关的 JSON 错误）；大小有上限，
 * 而不是让内存一路涨到几个 GB、最后被说成「流中断」；字符集照声明或 BOM 解码，不悄悄显示乱码；
 * 会话里我们不认识的内容块（例如 {"type":"image"}）两种协议都带不了，原样编码会让之后的每一次请求都被拒收。
 */
import { tryOr } from "../../guards/shown.js";
import type { AssistantMessage, Message } from "../../types.js";

/** 当事件流读：交回换成 UTF-8、数着每个事件大小的字节流；没有正文、或是别的 content-type 时是 undefined（没写的放行）。 */
export function eventStreamBody(response: Response, body = response.body): ReadableStream<Uint8Array> | undefined {
  const type = response.headers.get("content-type");
  if (!body || (type !== null && !type.toLowerCase().includes("text/event-stream"))) return undefined;
  const charset = /charset\s*=\s*"?([^";\s]+)/i.exec(type ?? "")?.[1]?.toLowerCase();
  if (charset === undefined || charset === "utf-8" || charset === "utf8") return body.pipeThrough(toUtf8(charset)).pipeThrough(limitEvents());
  const decoder = tryOr(undefined, () => new TextDecoderStream(charset));
  if (!decoder) throw new StreamGuardError(`服务器声明的字符集 ${charset.slice(0, 40)} 不认识，读不了这个流（content-type: ${type?.slice(0, 100)}）`);
  return body.pipeThrough(decoder).pipeThrough(new TextEncoderStream()).pipeThrough(limitEvents());
}

/** 一条回复最多这么多字符：写进会话文件时每个字符最多 6 字节（\u0000 转义），仍在会话读取器 64 MiB 一行的上限之内。 */
export const MAX_REPLY_CHARS = 8_000_000;
/** 一个事件最多这么多字节还没结束（空行）：永不换行的流也不会把内存撑满。 */
export const MAX_EVENT_BYTES = MAX_REPLY_CHARS;

/** 防线自己拦下的情形：说明已经写好了，原样交给用户，不再套上「流中断」。 */
export class StreamGuardError extends Error {}

/** 回复又长了一段之后的总长度；超过上限就停下。 */
export function checkReplySize(size: number): number {
  if (size <= MAX_REPLY_CHARS) return size;
  throw new StreamGuardError(`回复太长：超过上限 ${MAX_REPLY_CHARS.toLocaleString("en-US")} 个字符（文字、推理与工具参数合计），已停止接收`);
}

/**
 * 交给下游的总是 UTF-8。正文以 UTF-16 的 BOM 开头（FF FE 是 LE，FE FF 是 BE）就照 BOM 解码：WHATWG 的编码标准里 BOM 优先于声明。
 * 别的字节原样放行，第一次发现不是合法的 UTF-8 时警告一次。开头两个字节可能分在两个块里：凑够了再判断。
 */
function toUtf8(charset: string | undefined): TransformStream<Uint8Array, Uint8Array> {
  let head: Uint8Array | undefined = new Uint8Array(0);
  let utf16: InstanceType<typeof TextDecoder> | undefined;
  let strict: InstanceType<typeof TextDecoder> | undefined = new TextDecoder("utf-8", { fatal: true }); // 警告过就不再查
  const encoder = new TextEncoder();
  const pass = (chunk: Uint8Array, controller: TransformStreamDefaultController<Uint8Array>): void => {
    if (utf16) {
      const text = utf16.decode(chunk, { stream: true });
      if (text) controller.enqueue(encoder.encode(text));
      return;
    }
    try {
      strict?.decode(chunk, { stream: true });
    } catch {
      strict = undefined;
      const said = charset ? "content-type 说是 UTF-8" : "content-type 没有写 charset";
      console.warn(`[警告] 模型服务发来的字节不是合法的 UTF-8（${said}）：文字可能显示成乱码。如果它用的是 gbk 等编码，请让服务在 content-type 里写明 charset`);
    }
    controller.enqueue(chunk);
  };
  return new TransformStream({
    transform(chunk, controller) {
      if (!head) return pass(chunk, controller);
      const joined = Buffer.concat([head, chunk]);
      if (joined.length < 2) {
        head = joined;
        return;
      }
      head = undefined;
      const label = joined[0] === 0xff && joined[1] === 0xfe ? "utf-16le" : joined[0] === 0xfe && joined[1] === 0xff ? "utf-16be" : undefined;
      if (label) utf16 = new TextDecoder(label); // 解码器自己去掉 BOM
      pass(joined, controller);
    },
    flush(controller) {
      if (head?.length) pass(head, controller); // 整个正文不到两个字节
      const rest = utf16?.decode();
      if (rest) controller.enqueue(encoder.encode(rest));
    },
  });
}

/** 数一数离上一个空行（事件的结尾）有多少字节；超过上限就让流出错。CRLF 算一个行尾。 */
function limitEvents(): TransformStream<Uint8Array, Uint8Array> {
  let pending = 0;
  let lineEnds = 0;
  let afterCR = false;
  return new TransformStream({
    transform(chunk, controller) {
      for (let i = 0; i < chunk.length; i++) {
        const byte = chunk[i];
        if (byte === 10 && afterCR) {
          afterCR = false;
        } else if (byte === 10 || byte === 13) {
          afterCR = byte === 13;
          if (++lineEnds >= 2) pending = 0;
        } else {
          afterCR = false;
          lineEnds = 0;
          pending++;
        }
      }
      if (pending > MAX_EVENT_BYTES) {
        throw new StreamGuardError(`回复太长：一个事件超过上限 ${MAX_EVENT_BYTES.toLocaleString("en-US")} 字节还没结束，已停止接收`);
      }
      controller.enqueue(chunk);
    },
  });
}

const KNOWN = new Set(["text", "thinking", "toolCall"]);
const noted = new WeakSet<AssistantMessage>();

/** 助手消息里只留请求带得了的块；没有别的块时原样返回同一个对象。 */
export function onlyKnownBlocks(message: Message): Message {
  if (message.role !== "assistant") return message;
  const typeOf = (block: object): unknown => (block as { type?: unknown }).type;
  const unknown = message.content.filter((block) => !KNOWN.has(typeOf(block) as string));
  if (unknown.length === 0) return message;
  if (!noted.has(message)) {
    noted.add(message);
    // JSON.stringify 让类型名里的控制字符显示成转义，而不是在终端上生效
    const types = unknown.map((block) => JSON.stringify(typeOf(block)) ?? "undefined").join("、").slice(0, 80);
    console.warn(`[警告] 会话里有一条助手消息带着请求发不了的内容块（type：${types}）：这次请求不带它们，会话文件里照样保存着`);
  }
  return { ...message, content: message.content.filter((block) => KNOWN.has(typeOf(block) as string)) };
}
