/**
 * 从实验里借来的东西：脚本服务器（labs/scripted-provider）与 step09。
 *
 * research 不是根目录的 workspace，实验也不是它的依赖：这里按相对路径、经 pathToFileURL 动态导入 .ts 源文件
 * （vitest 与 tsx 都能直接跑 TypeScript）。服务器的类型用 import type 直接取自包的源码，不另抄一份。
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

// 服务器的形状直接用包里的类型（只导入类型；运行时按下面的路径动态导入）
import type { ProfileName, ProviderServer, RecordedRequest, Script, ScriptedReply, ServerOptions, Turn } from "../../labs/scripted-provider/src/index.ts";
export type { ProfileName, ProviderServer, RecordedRequest, ScriptedReply, Turn };

const here = path.dirname(fileURLToPath(import.meta.url));
export const LABS = path.resolve(here, "../../labs");
export const STEP09 = path.join(LABS, "mini-agent-harness/step09-retry-timeout/src");
/** 脚本服务器：workspace 包 labs/scripted-provider，入口按它 package.json 的 exports["."] 找。 */
export const SERVER_PACKAGE = path.join(LABS, "scripted-provider");

export async function importLab<T>(file: string): Promise<T> {
  return (await import(pathToFileURL(file).href)) as T;
}

export async function startServer(script: Script, options: ServerOptions = {}): Promise<ProviderServer> {
  const manifest = JSON.parse(readFileSync(path.join(SERVER_PACKAGE, "package.json"), "utf8")) as { exports: { ".": string } };
  const mod = await importLab<{ startProviderServer(script: Script, options?: ServerOptions): Promise<ProviderServer> }>(
    path.join(SERVER_PACKAGE, manifest.exports["."]),
  );
  return mod.startProviderServer(script, options);
}
