import fs from "node:fs";
import path from "node:path";

// 这些不属于「步骤的内容」：依赖、运行时生成的会话、锁文件、系统垃圾
const IGNORED_NAMES = new Set(["node_modules", ".sessions", "package-lock.json", ".DS_Store", ".git"]);

/** 递归列出目录里的文件，返回正斜杠相对路径（排序后） */
export function walkFiles(dir: string): string[] {
  const files: string[] = [];
  const visit = (abs: string, rel: string): void => {
    for (const entry of fs.readdirSync(abs, { withFileTypes: true })) {
      if (IGNORED_NAMES.has(entry.name) || entry.name.endsWith(".log")) continue;
      const childRel = rel === "" ? entry.name : `${rel}/${entry.name}`;
      const childAbs = path.join(abs, entry.name);
      if (entry.isDirectory()) visit(childAbs, childRel);
      else if (entry.isFile()) files.push(childRel);
    }
  };
  if (fs.existsSync(dir)) visit(dir, "");
  return files.sort();
}
