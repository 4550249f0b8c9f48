// 站点的阅读顺序来自地图（docs/README.md 的「阅读顺序」一节里加粗的章节号），不在这里另写一份；
// 不按编号排的章节（5.6 排在 8.5 与 8.6 之间）在侧边栏里带上地图给的理由，读者不必猜为什么。

function orderSection(readme: string): string {
  return /##\s*阅读顺序([\s\S]*?)(?:\n##\s|$)/.exec(readme)?.[1] ?? "";
}

export function readingOrder(readme: string, files: string[]): string[] {
  const numbers: string[] = [];
  for (const bold of orderSection(readme).matchAll(/\*\*([^*]+)\*\*/g)) for (const n of (bold[1] ?? "").matchAll(/\d+\.\d+/g)) if (!numbers.includes(n[0])) numbers.push(n[0]);
  const ordered = numbers.map((n) => files.find((f) => f.startsWith(`${n}-`))).filter((f): f is string => f !== undefined);
  // 地图里没提到的章节排在最后，免得新章节悄悄从站点里消失
  return [...ordered, ...files.filter((f) => !ordered.includes(f))];
}

const numberOf = (file: string): number[] => (/^(\d+)\.(\d+)/.exec(file) ?? []).slice(1).map(Number);
const before = (a: number[], b: number[]): boolean => (a[0] ?? 0) < (b[0] ?? 0) || ((a[0] ?? 0) === (b[0] ?? 0) && (a[1] ?? 0) < (b[1] ?? 0));

/**
 * 排在编号更大的章节之后的章节 → 地图里讲它的那一条（去掉加粗的章节号与 Markdown 记号）。
 * 例如 5.6 排在 8.5 之后：「建议在 8.5 之后读：8.5 的取消设计……」。
 */
export function orderNotes(readme: string, order: string[]): Map<string, string> {
  const items = orderSection(readme)
    .split(/\n(?=\s*\d+\.\s)/)
    .map((item) => item.replace(/^\s*\d+\.\s+/, "").replace(/\s+/g, " ").trim());
  const notes = new Map<string, string>();
  let highest: number[] = [];
  for (const file of order) {
    const n = numberOf(file);
    if (n.length === 0) continue;
    if (before(n, highest)) {
      const label = `**${n.join(".")}**`;
      const note = items.find((text) => text.startsWith(label))?.slice(label.length).replace(/\*\*|`/g, "").trim();
      if (note) notes.set(file, note);
    } else {
      highest = n;
    }
  }
  return notes;
}
