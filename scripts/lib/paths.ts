import path from "node:path";
import { fileURLToPath } from "node:url";

// 仓库根目录：本文件在 scripts/lib/ 下，往上两级
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

// 步骤目录都放在这里；所有函数都接受 root 参数，方便测试指向临时目录
export function labsDir(root: string): string {
  return path.join(root, "labs", "mini-agent-harness");
}

// 给人看的相对路径一律用正斜杠，Windows 上输出也一致
export function toPosix(p: string): string {
  return p.split(path.sep).join("/");
}
