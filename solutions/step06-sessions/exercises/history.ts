/**
 * 练习 6 的参考答案（第 8.4 章）：会话命令 history——列出当前分支上用户说过的话。
 * 自己按行解析、自己沿 parentId 往回走（也可以直接用 Session.open(file).messages()）。
 */

import fs from "node:fs";

interface Entry {
  type: string;
  id: string;
  parentId: string | null;
  message?: { role: string; content: unknown };
}

export function history(file: string): string[] {
  const lines = fs.readFileSync(file, "utf8").split("\n");
  const entries: Entry[] = [];
  for (const [index, line] of lines.entries()) {
    if (line.trim() === "") continue;
    try {
      entries.push(JSON.parse(line) as Entry);
    } catch (error) {
      // 最后一行写到一半：上次崩溃留下的，跳过；中间的坏行是真坏了
      if (index === lines.length - 1) break;
      throw new Error(`第 ${index + 1} 行不是合法的 JSON：${(error as Error).message}`);
    }
  }
  // 当前对话 = 从最后一个条目沿 parentId 往回走出来的那条链
  const byId = new Map(entries.map((entry) => [entry.id, entry]));
  const chain: Entry[] = [];
  for (let current = entries.at(-1); current; current = current.parentId === null ? undefined : byId.get(current.parentId)) {
    chain.push(current);
    if (chain.length > entries.length) throw new Error("parentId 形成了环");
  }
  return chain
    .reverse()
    .filter((entry) => entry.type === "message" && entry.message?.role === "user")
    .map((entry, index) => `${index + 1}. ${String(entry.message?.content)}`);
}
