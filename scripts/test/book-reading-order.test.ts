// 书站侧边栏的顺序来自地图（docs/README.md 的「阅读顺序」）；不按编号排的章节（5.6 在 8.5 与 8.6 之间）
// 带上地图给的理由（issue 49 第 9 条：侧边栏没说为什么 5.6 夹在那里）。
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { orderNotes, readingOrder } from "../../book/scripts/lib/reading-order.ts";
import { listChapters } from "../lib/docs-checker.ts";
import { repoRoot } from "../lib/paths.ts";

const readme = fs.readFileSync(path.join(repoRoot, "docs", "README.md"), "utf8");

describe("阅读顺序与侧边栏的说明", () => {
  it("真实的地图：5.6 排在 8.5 之后，只有它带说明，说明讲的是为什么", () => {
    const order = readingOrder(readme, listChapters(repoRoot));
    const at = (n: string) => order.findIndex((f) => f.startsWith(`${n}-`));
    expect(at("5.6")).toBe(at("8.5") + 1);
    const notes = orderNotes(readme, order);
    expect([...notes.keys()].map((f) => f.slice(0, 3))).toEqual(["5.6"]);
    const note = [...notes.values()][0] ?? "";
    expect(note).toMatch(/^建议在 8\.5 之后读：/);
    expect(note).toContain("8.7");
    expect(note).not.toMatch(/\*\*|`/);
  });

  it("按编号排的章节没有说明；地图里没写理由的不编造", () => {
    const map = "## 阅读顺序\n\n1. **1.1 → 1.2** 按顺序。\n2. **0.5** 放在 1.2 后面：它讲的是背景。\n3. **0.9** \n\n## 别的\n";
    const order = readingOrder(map, ["0.5-a.md", "0.9-c.md", "1.1-x.md", "1.2-y.md"]);
    expect(order).toEqual(["1.1-x.md", "1.2-y.md", "0.5-a.md", "0.9-c.md"]);
    expect(orderNotes(map, order)).toEqual(new Map([["0.5-a.md", "放在 1.2 后面：它讲的是背景。"]]));
  });
});
