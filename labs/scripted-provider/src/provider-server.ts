/**
 * 本地脚本服务器：一个真正的 HTTP 服务器，同时会说 OpenAI 与 Anthropic 两种协议，
 * 按脚本回复。step08、step09 的演示与测试靠它离线运行；也可以用它亲手试各种失败：
 * HTTP 错误、流中报错、连接中途断开、迟迟不回话……
 * 它记下收到的每个请求与每次提前断开，用来证明请求构造与取消确实发生了。
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { OPENAI, PROFILES, type Profile, type ProfileName } from "./profiles.js";
import { ThinkingLedger, signatureOf } from "./protocol-checks.js";
import type { Usage } from "./types.js";

/** 一次正常的流式回复。 */
export interface ScriptedReply {
  /**
   * 思考模型的推理，先于文字发出：OpenAI 协议用 DeepSeek 的 reasoning_content 增量（profile 可以换字段名），
   * Anthropic 用 thinking 块（thinking_delta + signature_delta）。带着它调了工具，下一轮请求要过协议检查（protocol-checks.ts）。
   */
  thinking?: string;
  /** 第一块数据之前先发这么多行 `: keep-alive` 注释（DeepSeek 排队时就这样保活：api-docs.deepseek.com/quick_start/rate_limit），间隔同样是 chunkDelayMs。 */
  keepAlive?: number;
  text?: string;
  /** arguments 给字符串时原样发送（可以故意给一段坏 JSON）。 */
  toolCalls?: Array<{ id?: string; name: string; arguments: Record<string, unknown> | string }>;
  /** 用我们的名字："stop" | "toolUse" | "length"；其他值原样发出（如 "content_filter"、"refusal"）。 */
  stopReason?: string;
  usage?: Partial<Usage>;
  /** 每个文本增量几个字符（默认 2）；工具参数每片几个字符（默认 4）。 */
  chunkSize?: number;
  argsChunkSize?: number;
  /** 相邻两个 SSE 事件之间等多久。 */
  chunkDelayMs?: number;
  /** 每次网络写入最多几个字节；1 = 逐字节发送，专门折磨解析器。 */
  bytesPerWrite?: number;
  lineEnding?: "\n" | "\r\n" | "\r";
  /** 多个工具调用的参数碎片轮流交错发出（只对 OpenAI 协议有意义）。 */
  interleaveToolCalls?: boolean;
  /** 发完内容后，在 200 的流里报一个错误，而不是正常结束。 */
  streamError?: { type: string; message: string };
  /** 发出这么多个 SSE 事件后直接掐断连接。 */
  dropAfterChunks?: number;
  /** 发出这么多个 SSE 事件后不再出声，连接一直开着（等客户端取消）。 */
  hangAfterChunks?: number;
  /** 正常关闭连接，但不发结束原因（也没有 [DONE] / message_stop）。 */
  endWithoutFinish?: boolean;
}

export type Turn =
  | ScriptedReply
  /**
   * 直接回一个 HTTP 错误；body 缺省时按协议生成标准的错误 JSON，
   * 其中的说明默认按状态码给，message 可以换掉它（试溢出、额度用完之类的文案）。
   */
  | { httpError: number; headers?: Record<string, string>; body?: unknown; message?: string }
  /** 挂起：默认发出响应头后一言不发；sendHeaders: false 则连响应头都不发。 */
  | { hang: true; sendHeaders?: boolean }
  /** 原样发送一段事件流文本（试验畸形的 SSE）；keepOpen 时发完不关连接。 */
  | { raw: string; bytesPerWrite?: number; keepOpen?: boolean }
  /** 重定向（301/302/303/307/308）到 location：可以是同一主机的路径，也可以是另一个主机（客户端不该把密钥带过去）。 */
  | { redirect: number; location: string }
  /** 200，但不是事件流：强制门户的 HTML、网关的 JSON 错误、写错地址拿到的网页。 */
  | { notStream: string; contentType: string };

export type Api = "openai" | "anthropic";

export interface RecordedRequest {
  method: string;
  path: string;
  api: Api | undefined;
  /** 小写头名；认证头的值已抹掉。 */
  headers: Record<string, string>;
  /** 解析后的 JSON（解析失败时是原文）。 */
  body: unknown;
}

export interface Disconnect {
  /** 第几个请求（requests 里的下标）。 */
  request: number;
  path: string;
  /** true：客户端先断开（例如取消）；false：是脚本让服务器掐断的。 */
  closedByClient: boolean;
}

export type Script = Turn[] | ((request: RecordedRequest, index: number) => Turn | Promise<Turn>);

export interface ProviderServer {
  url: string;
  openaiBaseUrl: string;
  anthropicBaseUrl: string;
  requests: RecordedRequest[];
  disconnects: Disconnect[];
  /**
   * 等第 request 个请求（从 0 数）的连接提前关闭：取消之后，服务器要过一会儿才看到连接断开。
   * 已经断开就立刻返回；服务器关闭时不再等，返回 undefined。
   */
  disconnected(request: number): Promise<Disconnect | undefined>;
  close(): Promise<void>;
}

export interface ServerOptions {
  /** 给出时检查请求带的密钥，不对就回 401（不消耗脚本）。 */
  apiKey?: string;
  /** 监听的端口；默认 0，由系统挑一个空闲端口（测试并行跑也不会撞车）。 */
  port?: number;
  /** OpenAI 协议照哪一家服务的样子说话（profiles.ts）；不给就是 OpenAI 本家的形状，推理按 DeepSeek 的规矩发。 */
  profile?: ProfileName;
}

const SECRET_HEADERS = new Set(["authorization", "x-api-key", "api-key"]);

export async function startProviderServer(script: Script, options: ServerOptions = {}): Promise<ProviderServer> {
  const requests: RecordedRequest[] = [];
  const disconnects: Disconnect[] = [];
  // 正在等某个请求断开的人：断开时（或服务器关闭时）叫醒他们
  const waiters = new Set<{ request: number; wake: (d: Disconnect | undefined) => void }>();
  const queue = Array.isArray(script) ? [...script] : undefined;
  const ledger = new ThinkingLedger();
  const profile = options.profile === undefined ? undefined : PROFILES[options.profile];
  let closing = false;

  const server = http.createServer(async (req, res) => {
    res.on("error", () => {}); // 对方已断开时的写入错误不影响服务器
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    const api: Api | undefined =
      path === "/v1/chat/completions" || path === "/chat/completions" ? "openai"
      : path === "/v1/messages" ? "anthropic"
      : undefined;
    const record: RecordedRequest = { method: req.method ?? "", path, api, headers: {}, body: undefined };
    for (const [name, value] of Object.entries(req.headers)) {
      const text = Array.isArray(value) ? value.join(", ") : (value ?? "");
      record.headers[name] = SECRET_HEADERS.has(name) ? text.replace(/^(Bearer )?.*$/, "$1***") : text;
    }
    record.body = await readBody(req);
    const index = requests.push(record) - 1;
    const state = { dropped: false };
    res.on("close", () => {
      if (res.writableFinished || closing) return;
      const disconnect = { request: index, path, closedByClient: !state.dropped };
      disconnects.push(disconnect);
      for (const waiter of waiters) if (waiter.request === index) waiter.wake(disconnect);
    });

    if (!api) return sendJson(res, 404, { error: { type: "not_found", message: `没有这个路径：${path}` } });
    if (options.apiKey !== undefined && keyOf(req, api) !== options.apiKey) {
      return sendJson(res, 401, errorBody(api, "authentication_error", "invalid api key"));
    }
    const violation = ledger.check(api, record.body);
    if (violation) return sendJson(res, 400, violation);
    let turn: Turn | undefined;
    try {
      turn = queue ? queue.shift() : await (script as Exclude<Script, Turn[]>)(record, index);
    } catch (error) {
      return sendJson(res, 500, errorBody(api, "script_error", `脚本函数出错：${String(error)}`));
    }
    if (!turn) {
      return sendJson(res, 500, errorBody(api, "script_exhausted", `脚本已经用完：这是第 ${index + 1} 个请求`));
    }
    try {
      await play(turn, api, record, index, res, state, ledger, profile);
    } catch {
      res.destroy(); // 脚本写错等意外：断开连接，别让测试进程崩掉
    }
  });

  // 端口被占用之类的错误要变成 reject，而不是一个没人接的 error 事件
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    openaiBaseUrl: `${url}/v1`,
    anthropicBaseUrl: url,
    requests,
    disconnects,
    disconnected: (request) => {
      const known = disconnects.find((d) => d.request === request);
      if (known || closing) return Promise.resolve(known);
      return new Promise((resolve) => {
        const waiter = {
          request,
          wake: (d: Disconnect | undefined) => {
            waiters.delete(waiter);
            resolve(d);
          },
        };
        waiters.add(waiter);
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        closing = true;
        for (const waiter of waiters) waiter.wake(undefined);
        server.close(() => resolve());
        server.closeAllConnections(); // 挂起的回复与空闲的长连接一并断开
      }),
  };
}

async function play(
  turn: Turn,
  api: Api,
  record: RecordedRequest,
  index: number,
  res: http.ServerResponse,
  state: { dropped: boolean },
  ledger: ThinkingLedger,
  profile: Profile | undefined,
): Promise<void> {
  if ("httpError" in turn) {
    const [type, message] = defaultError(turn.httpError);
    // 正文：剧本给的原样发；否则这一家服务的那份（message 没换掉说明时）；再否则按协议生成
    const own = api === "openai" && turn.message === undefined ? profile?.errors[turn.httpError] : undefined;
    const body = turn.body ?? own ?? errorBody(api, type, turn.message ?? message);
    const isText = typeof body === "string";
    res.writeHead(turn.httpError, { "content-type": isText ? "text/plain" : "application/json", ...turn.headers });
    res.end(isText ? body : JSON.stringify(body));
    return;
  }
  if ("redirect" in turn) {
    res.writeHead(turn.redirect, { location: turn.location });
    res.end();
    return;
  }
  if ("notStream" in turn) {
    res.writeHead(200, { "content-type": turn.contentType });
    res.end(turn.notStream);
    return;
  }
  if ("hang" in turn) {
    if (turn.sendHeaders !== false) {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.flushHeaders();
    }
    return; // 什么都不再发：等客户端自己放弃，或者 close()
  }
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  res.flushHeaders();
  if ("raw" in turn) {
    await write(res, turn.raw, turn.bytesPerWrite);
    if (!turn.keepOpen) res.end();
    return;
  }
  const body = record.body as { model?: string; stream_options?: { include_usage?: boolean } } | undefined;
  const model = body?.model ?? "scripted";
  // 思考模式默认开着的服务：剧本没写推理，也先发一段
  const reply = api === "openai" && profile?.thinking !== undefined && turn.thinking === undefined ? { ...turn, thinking: profile.thinking } : turn;
  const events =
    api === "openai"
      ? openaiEvents(reply, index + 1, model, body?.stream_options?.include_usage === true, profile ?? OPENAI)
      : anthropicEvents(reply, index + 1, model);
  // 带着推理调了工具：下一轮要查推理有没有带回来（OpenAI 协议只有 DeepSeek 式的服务查，不给 profile 时也按 DeepSeek）
  if (reply.thinking && (api === "anthropic" || (profile?.reasoningBack ?? true))) {
    ledger.issue(api, toolCallsOf(reply, index + 1, api === "anthropic" ? "toolu" : "call").map((call) => call.id), reply.thinking);
  }
  for (let i = 0; i < (turn.keepAlive ?? 0); i++) events.unshift({ comment: "keep-alive" });
  const eol = turn.lineEnding ?? "\n";
  const limit = Math.min(turn.dropAfterChunks ?? turn.hangAfterChunks ?? Infinity, events.length);
  for (let i = 0; i < limit; i++) {
    if (i > 0 && turn.chunkDelayMs) await sleep(turn.chunkDelayMs);
    if (res.destroyed) return; // 客户端已经走了
    const event = events[i] as WireEvent;
    const lines = event.comment !== undefined ? [`: ${event.comment}`] : [];
    if (event.event !== undefined) lines.push(`event: ${event.event}`);
    if (event.data !== undefined) lines.push(`data: ${event.data}`);
    await write(res, lines.join(eol) + eol + eol, turn.bytesPerWrite);
  }
  if (turn.dropAfterChunks !== undefined) {
    state.dropped = true;
    res.destroy();
  } else if (turn.hangAfterChunks === undefined) {
    res.end();
  }
}

// ── 两种协议的事件序列 ─────────────────────────────────────────

interface WireEvent {
  comment?: string;
  event?: string;
  data?: string;
}

const STOP_NAMES: Record<Api, Record<string, string>> = {
  openai: { stop: "stop", toolUse: "tool_calls", length: "length" },
  anthropic: { stop: "end_turn", toolUse: "tool_use", length: "max_tokens" },
};

function wireStopReason(turn: ScriptedReply, api: Api): string {
  const ours = turn.stopReason ?? (turn.toolCalls?.length ? "toolUse" : "stop");
  return STOP_NAMES[api][ours] ?? ours;
}

function usageOf(turn: ScriptedReply): Usage {
  return { input: 10, output: Array.from(turn.text ?? "").length, cacheRead: 0, cacheWrite: 0, ...turn.usage };
}

function toolCallsOf(turn: ScriptedReply, n: number, prefix: string): Array<{ id: string; name: string; pieces: string[] }> {
  return (turn.toolCalls ?? []).map((call, i) => {
    const json = typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments);
    return { id: call.id ?? `${prefix}_${n}_${i + 1}`, name: call.name, pieces: cut(json, turn.argsChunkSize ?? 4) };
  });
}

function openaiEvents(turn: ScriptedReply, n: number, model: string, includeUsage: boolean, profile: Profile): WireEvent[] {
  const base = { id: `chatcmpl-${n}`, object: "chat.completion.chunk", created: 0, model };
  const chunk = (delta: object): WireEvent => ({ data: JSON.stringify({ ...base, choices: [{ index: 0, delta, finish_reason: null }] }) });
  // 开头一行注释：有的服务（如 OpenRouter）真的会发，顺便检验注释处理
  const events: WireEvent[] = [{ comment: "本地脚本服务器" }, chunk({ role: "assistant", content: "" })];
  // 推理先于回答：DeepSeek 的形状是 content 为 null、推理在 reasoning_content 里；新版 vLLM 只有 reasoning 一个字段
  const field = profile.reasoningField;
  for (const piece of cutChars(turn.thinking ?? "", turn.chunkSize ?? 2)) {
    events.push(chunk(field === "reasoning_content" ? { content: null, reasoning_content: piece } : { reasoning: piece }));
  }
  for (const piece of cutChars(turn.text ?? "", turn.chunkSize ?? 2)) events.push(chunk({ content: piece }));
  // 每个工具调用：第一片带 id 与 name，之后只有参数碎片，全靠 index 认领（profile 可以让它一次给全、不带 index）
  const head = (index: number, call: { id: string; name: string }, args: string) => ({
    ...(profile.toolCallIndex ? { index } : {}),
    id: call.id,
    type: "function",
    function: { name: call.name, arguments: args },
  });
  const toolCalls = toolCallsOf(turn, n, "call");
  const calls = toolCalls.map((call, index) =>
    profile.wholeToolCalls
      ? [chunk({ tool_calls: [head(index, call, call.pieces.join(""))] })]
      : [chunk({ tool_calls: [head(index, call, "")] }), ...call.pieces.map((piece) => chunk({ tool_calls: [{ index, function: { arguments: piece } }] }))],
  );
  if (profile.toolCallsWithFinish && toolCalls.length > 0 && !turn.streamError && !turn.endWithoutFinish) {
    // 整批调用与 finish_reason 挤在同一块里
    const all = toolCalls.map((call, index) => head(index, call, call.pieces.join("")));
    return finish({ tool_calls: all });
  } else if (turn.interleaveToolCalls) {
    for (let i = 0; calls.some((c) => i < c.length); i++) for (const c of calls) if (c[i]) events.push(c[i] as WireEvent);
  } else {
    for (const c of calls) events.push(...c);
  }
  if (turn.streamError) {
    events.push({ data: JSON.stringify({ error: { message: turn.streamError.message, type: turn.streamError.type, code: null } }) });
    return events;
  }
  if (turn.endWithoutFinish) return events;
  return finish({});

  /** 收尾：finish_reason 那一块（delta 里可能还有整批工具调用），用量照这一家的位置放，最后 [DONE]。 */
  function finish(delta: object): WireEvent[] {
    const u = usageOf(turn);
    const usage = {
      prompt_tokens: u.input + u.cacheRead,
      completion_tokens: u.output,
      total_tokens: u.input + u.cacheRead + u.output,
      prompt_tokens_details: { cached_tokens: u.cacheRead },
      // DeepSeek 另用自己的字段名报告缓存命中与未命中
      ...(profile.usage === "finish-chunk" ? { prompt_cache_hit_tokens: u.cacheRead, prompt_cache_miss_tokens: u.input } : {}),
    };
    const place = includeUsage ? profile.usage : undefined;
    const choice = { index: 0, delta, finish_reason: wireStopReason(turn, "openai"), ...(place === "in-choice" ? { usage } : {}) };
    events.push({ data: JSON.stringify({ ...base, choices: [choice], ...(place === "finish-chunk" ? { usage } : {}) }) });
    if (place === "own-chunk") events.push({ data: JSON.stringify({ ...base, choices: [], usage }) });
    events.push({ data: "[DONE]" });
    return events;
  }
}

function anthropicEvents(turn: ScriptedReply, n: number, model: string): WireEvent[] {
  const ev = (type: string, payload: object = {}): WireEvent => ({ event: type, data: JSON.stringify({ type, ...payload }) });
  const u = usageOf(turn);
  const events: WireEvent[] = [
    ev("message_start", {
      message: {
        id: `msg_${n}`, type: "message", role: "assistant", model, content: [], stop_reason: null, stop_sequence: null,
        usage: { input_tokens: u.input, cache_creation_input_tokens: u.cacheWrite, cache_read_input_tokens: u.cacheRead, output_tokens: 1 },
      },
    }),
    ev("ping"),
  ];
  let index = 0;
  if (turn.thinking) {
    // extended thinking：思考块在最前面，内容分片到达，最后一片是签名
    events.push(ev("content_block_start", { index, content_block: { type: "thinking", thinking: "", signature: "" } }));
    for (const piece of cutChars(turn.thinking, turn.chunkSize ?? 2)) {
      events.push(ev("content_block_delta", { index, delta: { type: "thinking_delta", thinking: piece } }));
    }
    events.push(ev("content_block_delta", { index, delta: { type: "signature_delta", signature: signatureOf(turn.thinking) } }));
    events.push(ev("content_block_stop", { index }));
    index++;
  }
  if (turn.text) {
    events.push(ev("content_block_start", { index, content_block: { type: "text", text: "" } }));
    for (const piece of cutChars(turn.text, turn.chunkSize ?? 2)) {
      events.push(ev("content_block_delta", { index, delta: { type: "text_delta", text: piece } }));
    }
    events.push(ev("content_block_stop", { index }));
    index++;
  }
  for (const call of toolCallsOf(turn, n, "toolu")) {
    events.push(ev("content_block_start", { index, content_block: { type: "tool_use", id: call.id, name: call.name, input: {} } }));
    for (const piece of ["", ...call.pieces]) {
      events.push(ev("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: piece } }));
    }
    events.push(ev("content_block_stop", { index }));
    index++;
  }
  if (turn.streamError) {
    events.push(ev("error", { error: { type: turn.streamError.type, message: turn.streamError.message } }));
    return events;
  }
  if (turn.endWithoutFinish) return events;
  events.push(ev("message_delta", { delta: { stop_reason: wireStopReason(turn, "anthropic"), stop_sequence: null }, usage: { output_tokens: u.output } }));
  events.push(ev("message_stop"));
  return events;
}

// ── 小工具 ─────────────────────────────────────────────────────

function errorBody(api: Api, type: string, message: string): object {
  return api === "anthropic" ? { type: "error", error: { type, message } } : { error: { message, type, code: null } };
}

/** 按状态码给出像样的错误类型与说明（类型名取自 Anthropic 的文档）。 */
function defaultError(status: number): [type: string, message: string] {
  const types: Record<number, string> = {
    400: "invalid_request_error", 401: "authentication_error", 403: "permission_error", 404: "not_found_error",
    429: "rate_limit_error", 529: "overloaded_error",
  };
  return [types[status] ?? "api_error", status === 529 ? "Overloaded" : (http.STATUS_CODES[status] ?? "Error")];
}

function keyOf(req: http.IncomingMessage, api: Api): string | undefined {
  if (api === "anthropic") return req.headers["x-api-key"] as string | undefined;
  return req.headers.authorization?.replace(/^Bearer /, "");
}

function sendJson(res: http.ServerResponse, status: number, body: object): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

async function readBody(req: http.IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of req) chunks.push(chunk as Buffer);
  } catch {
    // 客户端没发完请求就断开了：记下收到的部分即可
  }
  const text = Buffer.concat(chunks).toString("utf8");
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** 写一段文本；给了 bytesPerWrite 就切成小块分多次写。 */
async function write(res: http.ServerResponse, text: string, bytesPerWrite?: number): Promise<void> {
  const bytes = Buffer.from(text, "utf8");
  const step = bytesPerWrite && bytesPerWrite > 0 ? bytesPerWrite : bytes.length;
  for (let i = 0; i < bytes.length; i += step) {
    if (res.destroyed) return;
    await new Promise<void>((resolve) => res.write(bytes.subarray(i, i + step), () => resolve()));
    // 让出一整轮事件循环：客户端（常在同一进程里）先把这一小块读走，小块才不会在内核里又粘成大块
    if (step < bytes.length) await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

/** 按字符（码点）切，避免把一个 emoji 切成两半发出去。 */
function cutChars(text: string, size: number): string[] {
  const chars = Array.from(text);
  const out: string[] = [];
  for (let i = 0; i < chars.length; i += size) out.push(chars.slice(i, i + size).join(""));
  return out;
}

/** 参数 JSON 则随便切：真实服务就是在任意位置切开的。 */
function cut(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
