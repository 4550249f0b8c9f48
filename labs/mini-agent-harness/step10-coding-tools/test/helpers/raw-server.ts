/**
 * 测试辅助：一个什么都由测试自己决定的 HTTP 服务器。
 * 脚本服务器只会说正确的协议；重定向、强制门户、奇怪的查询串这些「真实世界」的情形，用它来造。
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach } from "vitest";

export interface RawRequest {
  method: string;
  /** 路径加查询串，如 /v1/chat/completions?api-version=x。 */
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface RawServer {
  /** http://127.0.0.1:端口 */
  origin: string;
  requests: RawRequest[];
  close(): Promise<void>;
}

export type RawHandler = (req: RawRequest, res: http.ServerResponse) => void;

export async function startRawServer(handler: RawHandler): Promise<RawServer> {
  const requests: RawRequest[] = [];
  const server = http.createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => (body += chunk));
    req.on("end", () => {
      const recorded = { method: req.method ?? "", url: req.url ?? "", headers: req.headers, body };
      requests.push(recorded);
      handler(recorded, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** 在测试文件顶层调用：返回 serve(handler)，它起的服务器在每个测试结束后关掉。 */
export function rawServers(): (handler: RawHandler) => Promise<RawServer> {
  const servers: RawServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });
  return async (handler) => {
    const server = await startRawServer(handler);
    servers.push(server);
    return server;
  };
}

export type SseEvent = { event?: string; data: unknown };

/** 一串 SSE 事件写成的事件流文本：data 是对象时按 JSON 写出，字符串（如 [DONE]）原样写出。 */
export function sseText(events: SseEvent[]): string {
  return events.map(({ event, data }) => `${event ? `event: ${event}\n` : ""}data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`).join("");
}

/** 把一串 SSE 事件写成事件流并结束响应。 */
export function sendSse(res: http.ServerResponse, events: SseEvent[]): void {
  res.writeHead(200, { "content-type": "text/event-stream" });
  res.end(sseText(events));
}

/** 同样的事件流作为一个 fetch 的回复：进程内的测试把它交给 fetch 选项，不必起服务器。 */
export function sseResponse(events: SseEvent[]): Response {
  return new Response(sseText(events), { status: 200, headers: { "content-type": "text/event-stream" } });
}
