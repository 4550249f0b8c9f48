import { spawn } from "node:child_process";

export interface NodeRun {
  exitCode: number | null;
  output: string;
}

/** 用当前 node 跑一个脚本，stdout 与 stderr 合在一起收集（不经过 shell，跨平台） */
export function runNode(args: string[], cwd: string): Promise<NodeRun> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd, stdio: ["ignore", "pipe", "pipe"], windowsHide: true });
    const chunks: Buffer[] = [];
    child.stdout.on("data", (c: Buffer) => chunks.push(c));
    child.stderr.on("data", (c: Buffer) => chunks.push(c));
    child.on("error", (e) => resolve({ exitCode: null, output: `无法启动：${e.message}` }));
    child.on("close", (code) => resolve({ exitCode: code, output: Buffer.concat(chunks).toString("utf8") }));
  });
}
