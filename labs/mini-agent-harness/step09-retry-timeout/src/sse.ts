/**
 * Server-Sent Events 解析器，按 WHATWG HTML 标准「9.2.6 解释事件流」的规则手写。
 * OpenAI 与 Anthropic 两种协议共用它；[DONE] 只是一个普通的 data 值，由适配器自己判断。
 */

/** 一个派发出来的事件。event 缺省为 "message"；id 是「最近一次的事件 id」，会跨事件保留。 */
export interface SseEvent {
  event: string;
  data: string;
  id: string;
}

const LF = 10;
const CR = 13;
const COLON = 58;
const SPACE = 32;
const STREAM = { stream: true };

/**
 * 增量解析器：网络给多少字节就喂多少，凑够一个事件就交出一个。
 * 网络分块与行、与字符都没有对齐关系，所以半个字符、半行、半个行尾都要能跨块保留。
 */
export class SseParser {
  // stream 模式的解码器会把被切开的多字节字符留到下一块；默认还会去掉开头的 BOM
  private decoder = new TextDecoder("utf-8");
  /** 还没等到行尾的半行。 */
  private pending = "";
  /** 上一块恰好以 CR 结尾：下一块开头若是 LF，它和那个 CR 合起来只算一个行尾。 */
  private skipLF = false;
  private data = "";
  private hasData = false;
  private eventType = "";
  private lastEventId = "";
  /** 服务器建议的重连间隔（毫秒）。我们不自动重连，只是按规则记下来。 */
  retry: number | undefined;

  /** 喂入一块字节，返回这块字节凑齐的全部事件（可能为空）。 */
  feed(chunk: Uint8Array): SseEvent[] {
    const out: SseEvent[] = [];
    const text = this.decoder.decode(chunk, STREAM);
    if (text.length === 0) return out; // 只收到半个字符，连 skipLF 都还不能判断
    let start = 0;
    if (this.pending !== "") {
      // 上一块剩下半行：只把它和这一块的第一行拼起来，单独处理。不把整块新文字接到它后面——
      // 那样每来一块都要把整块复制一遍；这一块的其余部分直接在解码出的字符串上按下标扫描。
      const cr = text.indexOf("\r");
      const lf = text.indexOf("\n");
      if (cr === -1 && lf === -1) {
        this.pending += text; // 一行还没完：先攒着，免得一行很长、分块很碎时反复扫描同一段
        return out;
      }
      const end = lf === -1 || (cr !== -1 && cr < lf) ? cr : lf;
      start = text.charCodeAt(end) === CR && text.charCodeAt(end + 1) === LF ? end + 2 : end + 1;
      const head = this.pending + text.slice(0, start);
      this.pending = "";
      this.scan(head, 0, out); // head 以行尾结束，扫完不会留下半行
      // head 以 CR 结尾时 scan 会记下 skipLF；但 CR 后面是什么这一块已经知道了，只有它恰好是最后一个字符才要等下一块
      this.skipLF = start === text.length && text.charCodeAt(end) === CR;
    } else if (this.skipLF) {
      // 上一块以 CR 结尾时那一行已经处理完，pending 必然为空
      this.skipLF = false;
      if (text.charCodeAt(0) === LF) start = 1;
    }
    const rest = this.scan(text, start, out);
    this.pending = rest >= text.length ? "" : text.slice(rest);
    return out;
  }

  /** 逐行处理 buf 里从 start 起的完整行，返回最后那半行的起点。 */
  private scan(buf: string, start: number, out: SseEvent[]): number {
    const len = buf.length;
    // 分别记住下一个 CR 与 LF 的位置，只在越过它们时才重新查找，避免对同一段文字反复扫描
    let cr = -2;
    let lf = -2;
    while (start < len) {
      if (cr !== -1 && cr < start) cr = buf.indexOf("\r", start);
      if (lf !== -1 && lf < start) lf = buf.indexOf("\n", start);
      if (cr === -1 && lf === -1) break;
      const end = lf === -1 || (cr !== -1 && cr < lf) ? cr : lf;
      // 捷径：绝大多数事件只有一行 data，紧跟一个空行。这时不必先攒进 this.data、再等空行派发，
      // 直接交出事件并跳过那个空行——每个事件少走一遍 processLine 与 dispatch。结果与慢路完全相同。
      if (end === lf && !this.hasData && buf.charCodeAt(end + 1) === LF && isDataLine(buf, start)) {
        const from = buf.charCodeAt(start + 5) === SPACE ? start + 6 : start + 5;
        out.push({ event: this.eventType || "message", data: buf.slice(from, end), id: this.lastEventId });
        this.eventType = "";
        start = end + 2;
        continue;
      }
      this.processLine(buf, start, end, out);
      start = end + 1;
      if (buf.charCodeAt(end) === CR) {
        if (start === len) this.skipLF = true; // LF 可能在下一块
        else if (buf.charCodeAt(start) === LF) start++;
      }
    }
    return start;
  }

  /** 流结束：标准规定没被空行收尾的事件一律丢弃，所以这里只是清空状态。 */
  end(): void {
    this.decoder.decode();
    this.decoder = new TextDecoder("utf-8");
    this.pending = "";
    this.skipLF = false;
    this.data = "";
    this.hasData = false;
    this.eventType = "";
  }

  /** 处理 buf 里 [start, end) 这一行。直接在大字符串上按下标取值，省掉为每行复制一次。 */
  private processLine(buf: string, start: number, end: number, out: SseEvent[]): void {
    if (start === end) {
      this.dispatch(out);
      return;
    }
    if (buf.charCodeAt(start) === COLON) return; // 注释行：常被服务器用来保活
    let colon: number;
    let field: string;
    if (isDataLine(buf, start)) {
      colon = start + 4; // 绝大多数行是 data 行：走个捷径，省掉切出字段名
      field = "data";
    } else {
      colon = buf.indexOf(":", start);
      if (colon === -1 || colon > end) colon = end; // 没有冒号：整行是字段名，值为空
      field = buf.slice(start, colon);
    }
    // 冒号后的空格可有可无，有的话只去掉一个
    const from = colon + 1 < end && buf.charCodeAt(colon + 1) === SPACE ? colon + 2 : colon + 1;
    const value = from < end ? buf.slice(from, end) : "";
    switch (field) {
      case "data":
        this.data = this.hasData ? this.data + "\n" + value : value;
        this.hasData = true;
        break;
      case "event":
        this.eventType = value;
        break;
      case "id":
        if (!value.includes("\0")) this.lastEventId = value;
        break;
      case "retry":
        if (/^[0-9]+$/.test(value)) this.retry = Number(value);
        break;
      default:
        break; // 其他字段按标准忽略
    }
  }

  private dispatch(out: SseEvent[]): void {
    // 一行 data 都没有的事件不派发（注意：`data:` 空值也算有 data）
    if (this.hasData) {
      out.push({ event: this.eventType || "message", data: this.data, id: this.lastEventId });
    }
    this.data = "";
    this.hasData = false;
    this.eventType = "";
  }
}

/** buf 的 at 处是不是 `data:`。每个事件都要问一次：逐个比字符码（d a t a :）比 startsWith 快几个百分点。 */
function isDataLine(buf: string, at: number): boolean {
  return buf.charCodeAt(at) === 100 && buf.charCodeAt(at + 1) === 97 && buf.charCodeAt(at + 2) === 116 &&
    buf.charCodeAt(at + 3) === 97 && buf.charCodeAt(at + 4) === COLON;
}

/**
 * 把 fetch 的响应体读成事件序列。
 * signal 触发时抛出它的 reason：fetch 自己也会让读取失败，这里再兜一层，
 * 让不理会 signal 的 fetch 实现（以及测试里手造的流）也能被取消。
 */
export async function* readSse(
  body: ReadableStream<Uint8Array>,
  signal?: AbortSignal,
): AsyncGenerator<SseEvent> {
  const reader = body.getReader();
  const parser = new SseParser();
  const onAbort = (): void => {
    reader.cancel().catch(() => {});
  };
  signal?.addEventListener("abort", onAbort, { once: true });
  try {
    signal?.throwIfAborted();
    for (;;) {
      const { done, value } = await reader.read();
      signal?.throwIfAborted();
      if (done) break;
      for (const event of parser.feed(value)) {
        yield event;
        // 调用方处理这个事件时取消了：同一块里剩下的事件也不再交出
        signal?.throwIfAborted();
      }
    }
    parser.end();
  } finally {
    signal?.removeEventListener("abort", onAbort);
    // 调用方提前不读了：取消响应体，连接才会被释放
    reader.cancel().catch(() => {});
  }
}
