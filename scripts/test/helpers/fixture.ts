import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** 夹具步骤的 demo 用它代替 tsx 启动（见 plain-node-cli.mjs）：同样的调用方式，省掉加载器 */
export const plainNodeCli = fileURLToPath(new URL("./plain-node-cli.mjs", import.meta.url));

/** 在系统临时目录里造一个假仓库根，测试结束后删掉 */
export function makeFixtureRoot(prefix: string): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), `mah-${prefix}-`));
  fs.mkdirSync(path.join(root, "labs", "mini-agent-harness"), { recursive: true });
  return root;
}

export function removeFixtureRoot(root: string): void {
  // Windows 上刚被结束的子进程还占着它的工作目录（EBUSY）：多等一会儿再删
  fs.rmSync(root, { recursive: true, force: true, maxRetries: 10, retryDelay: 500 });
}

/** 写文件（路径用正斜杠，自动建目录） */
export function writeFiles(base: string, files: Record<string, string>): void {
  for (const [rel, content] of Object.entries(files)) {
    const abs = path.join(base, ...rel.split("/"));
    fs.mkdirSync(path.dirname(abs), { recursive: true });
    fs.writeFileSync(abs, content, "utf8");
  }
}

export function stepPath(root: string, step: string): string {
  return path.join(root, "labs", "mini-agent-harness", step);
}

/** 造一个步骤目录：package.json 声明 ESM，其余文件由调用方给 */
export function writeStep(root: string, step: string, files: Record<string, string>): string {
  const dir = stepPath(root, step);
  writeFiles(dir, { "package.json": `{ "name": "${step}", "private": true, "type": "module" }\n`, ...files });
  return dir;
}

/** 收集输出的假 stdout */
export class Collector {
  text = "";
  write(chunk: string | Uint8Array): boolean {
    this.text += typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8");
    return true;
  }
}
