/**
 * 测试用的一个小代理（127.0.0.1，系统挑的端口）：认 CONNECT 隧道，也认普通的「绝对地址」转发，
 * 把转发过的每个目标记下来。hosts 把假主机名映射到本机端口：测试里的「远端模型」不需要真的 DNS。
 */
import http from "node:http";
import net from "node:net";
import type { AddressInfo } from "node:net";

export interface RecordingProxy {
  url: string;
  /** 转发过的目标，如 "CONNECT model.example.test:4567" 或 "POST http://…"。 */
  forwarded: string[];
  close(): Promise<void>;
}

export async function startRecordingProxy(hosts: Record<string, string> = {}): Promise<RecordingProxy> {
  const forwarded: string[] = [];
  const sockets = new Set<net.Socket>();
  const realHost = (host: string): string => hosts[host] ?? host;
  const proxy = http.createServer((req, res) => {
    forwarded.push(`${req.method} ${req.url}`);
    const target = new URL(req.url ?? "/");
    const upstream = http.request({ host: realHost(target.hostname), port: target.port, path: target.pathname + target.search, method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on("error", () => res.destroy());
    req.pipe(upstream);
  });
  proxy.on("connect", (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    forwarded.push(`CONNECT ${req.url}`);
    const [host = "", port = "0"] = (req.url ?? "").split(":");
    const upstream = net.connect(Number(port), realHost(host), () => {
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      upstream.write(head);
      upstream.pipe(client).pipe(upstream);
    });
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on("error", () => [client, upstream].forEach((s) => s.destroy()));
      socket.on("close", () => sockets.delete(socket));
    }
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    forwarded,
    close: () => {
      for (const socket of sockets) socket.destroy();
      proxy.closeAllConnections();
      return new Promise((resolve) => proxy.close(() => resolve()));
    },
  };
}
