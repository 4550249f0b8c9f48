/**
 * 端到端：HARNESS_BASE_URL 的查询串里带着密钥（Azure 一类的写法），服务器又把收到的地址回显在错误里。
 * 屏幕上（横幅、[错误] 行）与会话文件里都不许出现它；请求本身带着原样的查询串到达服务器。
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";

import { makeSandbox, removeSandbox } from "./helpers/cli.js";
import { runCli } from "./helpers/in-process.js";
import { startRawServer, type RawServer } from "./helpers/raw-server.js";

const SECRET = "azure-SECRET-7f3a9c";
let server: RawServer | undefined;
let dir: string | undefined;
afterEach(async () => {
  await server?.close();
  if (dir) removeSandbox(dir);
});

describe("查询串里的密钥", () => {
  it("到达服务器的是 /v1/chat/completions?api-version=x&api-key=…；屏幕与会话文件里只有 ***", async () => {
    server = await startRawServer((req, res) => {
      res.writeHead(401, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: `Access denied for ${req.url} (${encodeURIComponent(req.url)})`, type: "invalid_request_error" } }));
    });
    dir = makeSandbox();
    const baseUrl = `${server.origin}/v1?api-version=x&api-key=${SECRET}`;
    const result = await runCli(dir, [], "你好\n", { HARNESS_BASE_URL: baseUrl, HARNESS_MODEL: "m" });
    expect(result.code, result.stderr).toBe(0);
    expect(server.requests[0]?.url).toBe(`/v1/chat/completions?api-version=x&api-key=${SECRET}`);
    expect(result.stdout).toContain(`${server.origin}/v1/chat/completions?api-version=x&api-key=***`);
    expect(result.stdout).toMatch(/\[错误\] HTTP 401：invalid_request_error：Access denied/);
    const sessions = path.join(dir, ".sessions");
    const saved = fs.readdirSync(sessions).map((name) => fs.readFileSync(path.join(sessions, name), "utf8")).join("\n");
    expect(saved).toContain("api-key=***");
    for (const text of [result.stdout, result.stderr, saved]) expect(text).not.toContain(SECRET);
  });
});
