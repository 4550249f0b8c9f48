// Server-Sent Events 解析器，按 WHATWG HTML 标准「9.2.6 解释事件流」的规则手写。
// OpenAI 与 Anthropic 两种协议共用它；[DONE] 只是一个普通的 data 值，由适配器自己判断。

/** 一个派发出来的事件。event 缺省为 "message"；id 是「最近一次的事件 id」，会跨事件保留。 */
export interface SseEvent { event: string; data: string; id: string }

/** 行尾有三种写法：CRLF、单独的 LF、单独的 CR。先把 CRLF 与 CR 都换成 LF，再只按 LF 切行。 */
const CR_LINE_END = /\r\n?/g;

// 增量解析器：网络给多少字节就喂多少，凑够一个事件就交出一个。
// 网络分块与行、与字符都没有对齐关系，所以半个字符、半行、半个行尾都要能跨块保留。
export class SseParser {
  // stream 模式的解码器会把被切开的多字节字符留到下一块；默认还会去掉开头的 BOM
  private decoder = new TextDecoder("utf-8");
  private pending = ""; // 还没等到行尾的半行
  /** 上一块恰好以 CR 结尾：下一块开头若是 LF，它和那个 CR 合起来只算一个行尾。 */
  private skipLF = false;
  /** 这个事件攒到的 data；undefined 表示还没有一行 data（`data:` 空值也算有）。 */
  private data: string | undefined;
  private eventType = "";
  private lastEventId = "";
  /** 服务器建议的重连间隔（毫秒）。我们不自动重连，只是按规则记下来。 */
  retry: number | undefined;

  /** 喂入一块字节，返回这块字节凑齐的全部事件（可能为空）。 */
  feed(chunk: Uint8Array): SseEvent[] {
    const out: SseEvent[] = [];
    let text = this.decoder.decode(chunk, { stream: true });
    if (text === "") return out; // 只收到半个字符：还看不出下一个字符是不是 LF
    if (this.skipLF && text.startsWith("\n")) text = text.slice(1);
    this.skipLF = text.endsWith("\r"); // 这个 CR 已经结束了一行，下一块开头的 LF 和它是同一个行尾
    text = text.replace(CR_LINE_END, "\n");
    // 这一块里没有行尾：只是接在半行后面，免得一行很长、分块很碎时把同一段反复切分
    if (!text.includes("\n")) {
      this.pending += text;
      return out;
    }
    const lines = (this.pending + text).split("\n");
    this.pending = lines.pop() ?? ""; // 最后一段后面没有行尾，是下一块要接上的半行
    for (const line of lines) this.processLine(line, out);
    return out;
  }

  /** 流结束：标准规定没被空行收尾的事件一律丢弃，所以这里只是清空状态。 */
  end(): void {
    this.decoder = new TextDecoder("utf-8");
    this.pending = "";
    this.skipLF = false;
    this.data = undefined;
    this.eventType = "";
  }

  /** 处理一整行（已去掉行尾）。 */
  private processLine(line: string, out: SseEvent[]): void {
    if (line === "") return this.dispatch(out); // 空行：一个事件到此结束
    if (line.startsWith(":")) return; // 注释行：常被服务器用来保活
    // 「字段:值」；没有冒号时整行是字段名、值为空。冒号后的空格可有可无，有的话只去掉一个
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") this.data = this.data === undefined ? value : `${this.data}\n${value}`;
    else if (field === "event") this.eventType = value;
    else if (field === "id" && !value.includes("\0")) this.lastEventId = value; // 含 NUL 的 id 按标准忽略
    else if (field === "retry" && /^[0-9]+$/.test(value)) this.retry = Number(value);
    // 其他字段按标准忽略
  }

  /** 把攒好的事件放进 out（一行 data 都没有就不放），再清空它。id 不清：它跨事件保留。 */
  private dispatch(out: SseEvent[]): void {
    if (this.data !== undefined) out.push({ event: this.eventType || "message", data: this.data, id: this.lastEventId });
    this.data = undefined;
    this.eventType = "";
  }
}

// 把 fetch 的响应体读成事件序列。signal 触发时抛出它的 reason：fetch 自己也会让读取失败，
// 这里再兜一层，让不理会 signal 的 fetch 实现（以及测试里手造的流）也能被取消。
export async function* readSse(body: ReadableStream<Uint8Array>, signal?: AbortSignal): AsyncGenerator<SseEvent> {
  const reader = body.getReader();
  const parser = new SseParser();
  const onAbort = (): void => void reader.cancel().catch(() => {});
  signal?.addEventListener("abort", onAbort, { once: true });
  try {
    signal?.throwIfAborted();
    for (;;) {
      const { done, value } = await reader.read();
      signal?.throwIfAborted();
      if (done) break;
      for (const event of parser.feed(value)) {
        yield event;
        signal?.throwIfAborted(); // 调用方处理这个事件时取消了：同一块里剩下的事件也不再交出
      }
    }
    parser.end();
  } finally {
    signal?.removeEventListener("abort", onAbort);
    reader.cancel().catch(() => {}); // 调用方提前不读了：取消响应体，连接才会被释放
  }
}
