/**
 * 练习 8（第 8.6 章）：第三种线上格式——为 Ollama 的 /api/chat 写一个 StreamFn。
 *
 * Ollama 不用 SSE，而是 NDJSON：一行一个 JSON 对象，最后一行带 "done": true。
 * 检查器自己起一个 node:http 小服务器扮演 Ollama，按用例发出各种回应，再用学习者的 StreamFn 消费它。
 * 几个朴素写法各有一项过不了：每块数据各自解码/各自按行切（数据被切在半个汉字、半行处），
 * 把「连接正常结束」当成「模型说完了」（没有 done 行），以及出错时 throw 而不是交出 error 消息。
 */

import http from "node:http";
import type { AddressInfo } from "node:net";

import { attempt, expectThat, isDeepStrictEqual, loadExport, same, show, withDeadline } from "./helpers.ts";
import { generatedName, type Random } from "./random.ts";
import type { Check, Exercise } from "./types.ts";

interface StreamEvent {
  type: string;
  delta?: string;
  message?: { role?: string; content?: Array<{ type: string; text?: string }>; stopReason?: string; errorMessage?: string; usage?: unknown };
}
type StreamFn = (context: unknown, options?: { signal?: AbortSignal }) => AsyncIterable<StreamEvent>;
type Factory = (config: { baseUrl: string; model: string }) => StreamFn;

const FILE = "exercises/ollama.ts";
const MODEL = "mini-model";

type Handler = (req: http.IncomingMessage, res: http.ServerResponse, body: string) => unknown;

/** 扮演 Ollama 的小服务器：每个请求交给 next() 事先排好的处理函数。 */
async function startFakeOllama() {
  const queue: Handler[] = [];
  const seen: Array<{ method?: string; url?: string; body: string }> = [];
  const server = http.createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => (body += chunk));
    req.on("end", () => {
      seen.push({ method: req.method, url: req.url, body });
      const handler = queue.shift() ?? ((_, response) => response.writeHead(500).end('{"error":"检查器没有为这个请求准备回应"}'));
      void handler(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    seen,
    next(handler: Handler) {
      queue.push(handler);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const line = (value: unknown): string => JSON.stringify(value) + "\n";
const chunkLine = (text: string) => line({ model: MODEL, created_at: "2026-01-01T00:00:00Z", message: { role: "assistant", content: text }, done: false });
const doneLine = (reason = "stop", input = 26, output = 9) =>
  line({ model: MODEL, created_at: "2026-01-01T00:00:00Z", message: { role: "assistant", content: "" }, done: true, done_reason: reason, prompt_eval_count: input, eval_count: output });
const NDJSON = { "content-type": "application/x-ndjson" };

/** 分几次写出去，每次之间让出事件循环，让客户端分几块收到。 */
async function writeInPieces(res: http.ServerResponse, pieces: Buffer[]): Promise<void> {
  for (const piece of pieces) {
    res.write(piece);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

/** 把字节切成每 size 字节一块：汉字（UTF-8 里 3 个字节）和 JSON 行都会被切开。 */
function slices(text: string, size: number): Buffer[] {
  const bytes = Buffer.from(text, "utf8");
  const pieces: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += size) pieces.push(bytes.subarray(i, i + size));
  return pieces;
}

interface Outcome {
  text: string;
  done: StreamEvent["message"][];
  threw?: string;
}

/** 消费一次流：收集文字与 done；学习者的代码抛异常也记下来（契约说不许抛）。 */
async function consume(stream: StreamFn, context: unknown, signal?: AbortSignal, onDelta?: () => void): Promise<Outcome> {
  const outcome: Outcome = { text: "", done: [] };
  try {
    for await (const event of stream(context, signal ? { signal } : undefined)) {
      if (event.type === "text_delta") {
        outcome.text += event.delta ?? "";
        onDelta?.();
      } else if (event.type === "done") outcome.done.push(event.message);
    }
  } catch (error) {
    outcome.threw = error instanceof Error ? error.message : String(error);
  }
  return outcome;
}

const ask = (text: string) => ({ messages: [{ role: "user", content: text }] });
const describe = (outcome: Outcome): string => {
  if (outcome.threw !== undefined) return `StreamFn 抛出了异常：${outcome.threw}（契约：错误要编码成 done 消息，不许 throw）`;
  const last = outcome.done.at(-1);
  return `文字 ${show(outcome.text)}，${outcome.done.length} 个 done，stopReason=${show(last?.stopReason)}，errorMessage=${show(last?.errorMessage)}`;
};
const textOf = (message: StreamEvent["message"]): string => (message?.content ?? []).map((part) => (part.type === "text" ? part.text ?? "" : "")).join("");

async function check(stepDir: string, random: Random): Promise<Check[]> {
  const loaded = await loadExport<Factory>(stepDir, FILE, "createOllamaStream", "function");
  if (loaded.value === undefined) return [loaded.check];
  const create = loaded.value;
  const checks: Check[] = [loaded.check];
  const server = await startFakeOllama();
  const stream = create({ baseUrl: server.baseUrl, model: MODEL });
  try {
    // 1. 请求长什么样
    const requestName = "请求：POST /api/chat，带 model，systemPrompt 成为第一条 system 消息，助手消息的内容是纯文本";
    checks.push(
      ...(await attempt(requestName, async () => {
        server.next((_, res) => res.writeHead(200, NDJSON).end(chunkLine("好") + doneLine()));
        const before = server.seen.length;
        await consume(stream, {
          systemPrompt: "你是测试助手",
          messages: [
            { role: "user", content: "我叫小明" },
            { role: "assistant", content: [{ type: "text", text: "你好，小明！我记住了。" }], stopReason: "stop" },
            { role: "user", content: "我叫什么" },
          ],
        });
        const request = server.seen[before];
        if (!request) return { name: requestName, ok: false, saw: "服务器没有收到任何请求" };
        let body: { model?: unknown; messages?: unknown; stream?: unknown } = {};
        try {
          body = JSON.parse(request.body) as typeof body;
        } catch {
          return { name: requestName, ok: false, saw: `请求体不是 JSON：${show(request.body.slice(0, 120))}` };
        }
        const expected = {
          method: "POST",
          url: "/api/chat",
          model: MODEL,
          stream: true,
          messages: [
            { role: "system", content: "你是测试助手" },
            { role: "user", content: "我叫小明" },
            { role: "assistant", content: "你好，小明！我记住了。" },
            { role: "user", content: "我叫什么" },
          ],
        };
        return same(requestName, { method: request.method, url: request.url, model: body.model, stream: body.stream ?? true, messages: body.messages }, expected);
      })),
    );

    // 2. 正常回复
    const normalName = "正常回复：文字一段段到达，done 的 stopReason 是 stop，用量取自 prompt_eval_count / eval_count";
    checks.push(
      ...(await attempt(normalName, async () => {
        server.next((_, res) => res.writeHead(200, NDJSON).end(chunkLine("你好，") + chunkLine("小明！") + doneLine()));
        const outcome = await consume(stream, ask("我叫小明"));
        const last = outcome.done.at(-1);
        const ok = outcome.threw === undefined && outcome.text === "你好，小明！" && outcome.done.length === 1 && last?.stopReason === "stop" && textOf(last) === "你好，小明！";
        const usageOk = isDeepStrictEqual(last?.usage, { input: 26, output: 9, cacheRead: 0, cacheWrite: 0 });
        return expectThat(normalName, ok && usageOk, `${describe(outcome)}，usage=${show(last?.usage)}`, '文字 "你好，小明！"，1 个 done，stopReason="stop"，usage={"input":26,"output":9,"cacheRead":0,"cacheWrite":0}');
      })),
    );

    // 3. 切在半个汉字、半行处
    const splitName = "数据被切成 5 字节一块（半个汉字、半行 JSON）：文字照样完整";
    checks.push(
      ...(await attempt(splitName, async () => {
        server.next(async (_, res) => {
          res.writeHead(200, NDJSON);
          await writeInPieces(res, slices(chunkLine("这是一段") + chunkLine("很长的回复。") + doneLine(), 5));
          res.end();
        });
        const outcome = await consume(stream, ask("说个长的"));
        return expectThat(splitName, outcome.threw === undefined && outcome.text === "这是一段很长的回复。" && outcome.done.at(-1)?.stopReason === "stop", describe(outcome), '文字 "这是一段很长的回复。"，stopReason="stop"');
      })),
    );

    // 4. done_reason: length
    const lengthName = "done_reason 为 length（输出被截断）：stopReason 是 length";
    checks.push(
      ...(await attempt(lengthName, async () => {
        server.next((_, res) => res.writeHead(200, NDJSON).end(chunkLine("写到一半") + doneLine("length")));
        const outcome = await consume(stream, ask("说个长的"));
        return expectThat(lengthName, outcome.threw === undefined && outcome.done.at(-1)?.stopReason === "length", describe(outcome));
      })),
    );

    // 5. HTTP 错误
    const httpName = "HTTP 404（模型不存在）：stopReason 是 error，errorMessage 里有 404 和服务器的原话";
    checks.push(
      ...(await attempt(httpName, async () => {
        server.next((_, res) => res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: 'model "mini-model" not found, try pulling it first' })));
        const outcome = await consume(stream, ask("我叫小明"));
        const message = outcome.done.at(-1)?.errorMessage ?? "";
        return expectThat(httpName, outcome.threw === undefined && outcome.done.at(-1)?.stopReason === "error" && message.includes("404") && message.includes("not found"), describe(outcome));
      })),
    );

    // 6. 流中途的 error 行
    const midName = "流中途来了一行 {\"error\": …}：已到的文字保留，stopReason 是 error，errorMessage 里有原话";
    checks.push(
      ...(await attempt(midName, async () => {
        server.next((_, res) => res.writeHead(200, NDJSON).end(chunkLine("你好") + line({ error: "GPU 内存不足" })));
        const outcome = await consume(stream, ask("我叫小明"));
        const last = outcome.done.at(-1);
        return expectThat(midName, outcome.threw === undefined && outcome.text === "你好" && last?.stopReason === "error" && (last.errorMessage ?? "").includes("GPU 内存不足") && textOf(last) === "你好", describe(outcome));
      })),
    );

    // 7. 没有 done 行就结束
    const eofName = "连接正常关闭、却没有 \"done\": true 那一行：算失败（stopReason 是 error），不算说完";
    checks.push(
      ...(await attempt(eofName, async () => {
        server.next((_, res) => res.writeHead(200, NDJSON).end(chunkLine("说到一半")));
        const outcome = await consume(stream, ask("说个长的"));
        return expectThat(eofName, outcome.threw === undefined && outcome.done.at(-1)?.stopReason === "error", describe(outcome));
      })),
    );

    // 8. 连接中途被掐断
    const cutName = "连接中途被服务器掐断：不抛异常，stopReason 是 error";
    checks.push(
      ...(await attempt(cutName, async () => {
        server.next(async (_, res) => {
          res.writeHead(200, NDJSON);
          await writeInPieces(res, [Buffer.from(chunkLine("说到"))]);
          res.destroy();
        });
        const outcome = await consume(stream, ask("说个长的"));
        return expectThat(cutName, outcome.threw === undefined && outcome.done.length === 1 && outcome.done[0]?.stopReason === "error", describe(outcome));
      })),
    );

    // 9. 连不上
    const refusedName = "服务器没开（连接被拒绝）：不抛异常，stopReason 是 error";
    checks.push(
      ...(await attempt(refusedName, async () => {
        const gone = await startFakeOllama();
        await gone.close();
        const outcome = await consume(create({ baseUrl: gone.baseUrl, model: MODEL }), ask("我叫小明"));
        return expectThat(refusedName, outcome.threw === undefined && outcome.done.at(-1)?.stopReason === "error", describe(outcome));
      })),
    );

    // 10. 取消
    const abortName = "收到第一段文字后取消：stopReason 是 aborted，服务器那边的连接真的断开了";
    checks.push(
      ...(await attempt(abortName, async () => {
        let closed!: () => void;
        const connectionClosed = new Promise<void>((resolve) => (closed = resolve));
        server.next((req, res) => {
          res.on("close", () => closed());
          req.socket.on("close", () => closed());
          res.writeHead(200, NDJSON);
          res.write(chunkLine("这是一段"));
          // 之后一言不发，连接一直开着，直到客户端断开
        });
        const controller = new AbortController();
        const finished = await withDeadline(consume(stream, ask("说个长的"), controller.signal, () => controller.abort()), 5_000, "等流结束").catch(() => undefined);
        if (finished === undefined) {
          return { name: abortName, ok: false, saw: "取消之后 5 秒，流还没有结束，服务器那边的连接也还开着（signal 交给 fetch 了吗？）" };
        }
        const disconnected = await withDeadline(connectionClosed.then(() => true), 5_000, "等连接断开").catch(() => false);
        return expectThat(abortName, finished.threw === undefined && finished.done.at(-1)?.stopReason === "aborted" && disconnected, `${describe(finished)}${disconnected ? "" : "；5 秒后服务器那边的连接仍然开着（signal 没交给 fetch？）"}`);
      })),
    );

    // 11. 随机用例：现造的回复（汉字、emoji 混着来），切成随机大小的字节块；现造的 HTTP 错误
    const pieces = Array.from({ length: random.int(2, 5) }, () => random.text(random.int(1, 6), ["cjk", "astral", "ascii"]));
    const reason = random.pick(["stop", "length"]);
    const usage = { input: random.int(1, 5000), output: random.int(1, 900) };
    // 块的大小随机（1–7 字节），但最多切成 40 块：每块之间要等一次定时器，机器忙时块太多会很慢
    const body = pieces.map(chunkLine).join("") + doneLine(reason, usage.input, usage.output);
    const size = Math.max(random.int(1, 7), Math.ceil(Buffer.byteLength(body) / 40));
    const question = random.text(random.int(2, 6), ["cjk"]);
    const replyName = `${generatedName(1, 2, `切成 ${size} 字节一块`)}：回复 ${show(pieces.join(""))}，done_reason 为 ${reason}，用量 ${usage.input}/${usage.output}`;
    checks.push(
      ...(await attempt(replyName, async () => {
        server.next(async (_, res) => {
          res.writeHead(200, NDJSON);
          await writeInPieces(res, slices(body, size));
          res.end();
        });
        const outcome = await consume(stream, ask(question));
        const last = outcome.done.at(-1);
        const seen = { threw: outcome.threw, text: outcome.text, done: outcome.done.length, stopReason: last?.stopReason, doneText: textOf(last), usage: last?.usage };
        const text = pieces.join("");
        return same(replyName, seen, { threw: undefined, text, done: 1, stopReason: reason, doneText: text, usage: { ...usage, cacheRead: 0, cacheWrite: 0 } });
      })),
    );
    const status = random.pick([400, 404, 500, 503]);
    const detail = `检查器的错误 ${random.id(6)}`;
    const httpFresh = `${generatedName(2, 2, "HTTP 错误")}：HTTP ${status}，服务器说 ${show(detail)}：stopReason 是 error，errorMessage 里有 ${status} 和原话`;
    checks.push(
      ...(await attempt(httpFresh, async () => {
        server.next((_, res) => res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify({ error: detail })));
        const outcome = await consume(stream, ask(question));
        const message = outcome.done.at(-1)?.errorMessage ?? "";
        return expectThat(httpFresh, outcome.threw === undefined && outcome.done.at(-1)?.stopReason === "error" && message.includes(String(status)) && message.includes(detail), describe(outcome));
      })),
    );
  } finally {
    await server.close();
  }
  return checks;
}

export const exercise08: Exercise = {
  id: 8,
  step: "step08-real-model",
  chapter: "8.6",
  title: "第三种线上格式：为 Ollama 的 /api/chat 写一个 StreamFn",
  file: FILE,
  hints: [
    "插座不换，换墙里的电线：还是那个 StreamFn，只是字节换了一种排法。网络给你的是任意切开的字节块，不是一行一行的 JSON——先把字节拼成文本、再按换行切出完整的行，最后一段不完整的行留到下一块。所有失败都编码成 done 消息，不许 throw。",
    "对照 src/sse.ts（SseParser 怎样用 TextDecoder 的 stream 模式处理半个字符、怎样攒半行）和 src/providers/stream-request.ts（唯一的 try/catch、signal 交给 fetch、取消与失败的区别）。出错说明可以直接用 src/providers/http-error.ts 的 describeHttpError / describeNetworkError。新文件 exercises/ollama.ts 导出 createOllamaStream({ baseUrl, model })。",
    "export function createOllamaStream(config: { baseUrl: string; model: string }): StreamFn {\n  return async function* (context, options) {\n    const signal = options?.signal; let text = \"\"; let usage; let stopReason;\n    try {\n      const response = await fetch(`${config.baseUrl}/api/chat`, { method: \"POST\", body: JSON.stringify({ model, messages: /* system + 文本化的消息 */, stream: true }), signal });\n      if (!response.ok) { yield done(\"error\", await describeHttpError(response)); return; }\n      const decoder = new TextDecoder(); let buffer = \"\";\n      for await (const bytes of response.body) {\n        buffer += decoder.decode(bytes, { stream: true });\n        // 切出完整的行：{error} → 失败；message.content → text_delta；done: true → 记下 done_reason 与用量\n      }\n      // 没见到 done: true → 失败；见到了 → stop / length\n    } catch (error) { /* signal.aborted → aborted；否则 error */ }\n  };\n}",
  ],
  check,
};
