/**
 * 从实验里借来的东西：脚本服务器（labs/scripted-provider）与 step09。
 *
 * research 不是根目录的 workspace，实验也不是它的依赖：这里按相对路径、经 pathToFileURL 动态导入 .ts 源文件
 * （vitest 与 tsx 都能直接跑 TypeScript）。类型只写我们真正用到的那几样，免得把实验的 tsconfig 也拖进来。
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
export const LABS = path.resolve(here, "../../labs");
export const STEP09 = path.join(LABS, "mini-agent-harness/step09-retry-timeout/src");
/** 脚本服务器：workspace 包 labs/scripted-provider，入口按它 package.json 的 exports["."] 找。 */
export const SERVER_PACKAGE = path.join(LABS, "scripted-provider");

export async function importLab<T>(file: string): Promise<T> {
  return (await import(pathToFileURL(file).href)) as T;
}

// ── 脚本服务器（provider-server.ts）里用到的形状 ──────────────────

export interface ScriptedReply {
  thinking?: string;
  text?: string;
  toolCalls?: Array<{ id?: string; name: string; arguments: Record<string, unknown> | string }>;
  stopReason?: string;
  usage?: Partial<{ input: number; output: number; cacheRead: number; cacheWrite: number }>;
  chunkSize?: number;
  argsChunkSize?: number;
  bytesPerWrite?: number;
  interleaveToolCalls?: boolean;
  streamError?: { type: string; message: string };
  dropAfterChunks?: number;
  hangAfterChunks?: number;
  endWithoutFinish?: boolean;
}

export type Turn =
  | ScriptedReply
  | { httpError: number; headers?: Record<string, string>; body?: unknown; message?: string }
  | { hang: true; sendHeaders?: boolean }
  | { redirect: number; location: string }
  | { notStream: string; contentType: string };

export interface RecordedRequest {
  path: string;
  api: "openai" | "anthropic" | undefined;
  body: unknown;
}

export interface ProviderServer {
  url: string;
  openaiBaseUrl: string;
  anthropicBaseUrl: string;
  requests: RecordedRequest[];
  disconnects: Array<{ request: number; closedByClient: boolean }>;
  close(): Promise<void>;
}

type Script = Turn[] | ((request: RecordedRequest, index: number) => Turn | Promise<Turn>);

export async function startServer(script: Script): Promise<ProviderServer> {
  const manifest = JSON.parse(readFileSync(path.join(SERVER_PACKAGE, "package.json"), "utf8")) as { exports: { ".": string } };
  const mod = await importLab<{ startProviderServer(script: Script): Promise<ProviderServer> }>(
    path.join(SERVER_PACKAGE, manifest.exports["."]),
  );
  return mod.startProviderServer(script);
}
