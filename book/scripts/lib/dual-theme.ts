// 浅色 + 深色两套主题只分词一次。Shiki 的 themes: { light, dark } 会把整段代码按每套主题各分词一遍
// （codeToTokensWithThemes），而分词（Oniguruma 正则）是构建里最重的 CPU 活。github-light 与 github-dark
// 出自同一个生成器：规则的条数、顺序、作用域、字体样式完全相同，只有颜色不同。所以造一套「合成主题」：
// 第 i 条规则的前景色换成代表（浅色 i, 深色 i）这一对的编号色，分词一次，再把每个编号色换回那一对颜色——
// 输出与双主题逐字节相同（浏览器测试开头对几段样例逐字节对照两种做法，见 browser-test.ts）。
import type { ShikiTransformer, ThemeRegistrationRaw } from "shiki";
import githubDark from "shiki/themes/github-dark.mjs";
import githubLight from "shiki/themes/github-light.mjs";

export const THEMES = { light: "github-light", dark: "github-dark" } as const;

type Raw = ThemeRegistrationRaw & { colors?: Record<string, string>; tokenColors?: Array<{ scope?: unknown; settings: { foreground?: string; fontStyle?: string } }> };

const light = githubLight as unknown as Raw;
const dark = githubDark as unknown as Raw;

/** 编号色 → [浅色, 深色]（颜色按 vscode-textmate 的写法转成大写，与双主题的输出一致） */
const pairs = new Map<string, [string, string]>();
const codeOf = new Map<string, string>();
function code(l: string, d: string): string {
  const key = `${l.toUpperCase()}|${d.toUpperCase()}`;
  let c = codeOf.get(key);
  if (c === undefined) {
    c = `#${(codeOf.size + 1).toString(16).padStart(6, "0").toUpperCase()}`;
    codeOf.set(key, c);
    pairs.set(c, [l.toUpperCase(), d.toUpperCase()]);
  }
  return c;
}

function check(): void {
  const a = light.tokenColors ?? [];
  const b = dark.tokenColors ?? [];
  const same =
    a.length === b.length &&
    a.every(
      (r, i) =>
        JSON.stringify(r.scope) === JSON.stringify(b[i]?.scope) &&
        r.settings.fontStyle === b[i]?.settings.fontStyle &&
        (r.settings.foreground === undefined) === (b[i]?.settings.foreground === undefined),
    );
  // 新版本的主题要是结构不再一致，合成主题就不等价了：宁可构建失败，也不出错色
  if (!same) throw new Error("github-light 与 github-dark 的规则结构不一致：不能合成一套主题分词一次（见 book/scripts/lib/dual-theme.ts）");
}

check();
const fg = code(light.colors?.["editor.foreground"] ?? "#24292e", dark.colors?.["editor.foreground"] ?? "#e1e4e8");

/** 一次分词用的合成主题 */
export const dualTheme: ThemeRegistrationRaw = {
  name: "github-light-dark",
  type: "light",
  colors: { "editor.foreground": fg, "editor.background": "#ffffff" },
  settings: (light.tokenColors ?? []).map((rule, i) => {
    const d = dark.tokenColors?.[i]?.settings.foreground;
    const settings = { ...rule.settings };
    if (settings.foreground !== undefined && d !== undefined) settings.foreground = code(settings.foreground, d);
    return { ...rule, settings };
  }) as ThemeRegistrationRaw["settings"],
};

/**
 * 把合成主题的输出改成双主题的样子：编号色换回颜色对，<pre> 的类名与样式换成双主题的。
 * defaultColor 与 codeToHtml 的同名选项相同："light"（浅色直接写 color，深色写 --shiki-dark）或 false（两套都写成变量）。
 */
export function dualThemeTransformer(defaultColor: "light" | false, preStyle: string | undefined): ShikiTransformer {
  return {
    name: "book:dual-theme",
    pre(node) {
      const cls = node.properties.class;
      const list = (Array.isArray(cls) ? cls.map(String) : String(cls ?? "").split(/\s+/)).filter((c) => c !== "" && c !== dualTheme.name);
      const at = list.indexOf("shiki");
      list.splice(at + 1, 0, "shiki-themes", THEMES.light, THEMES.dark);
      node.properties.class = list.join(" ");
      if (preStyle === undefined) delete node.properties.style;
      else node.properties.style = preStyle;
    },
    span(node) {
      const style = node.properties.style;
      if (typeof style !== "string") return;
      const lightStyles: string[] = [];
      const darkStyles: string[] = [];
      const lightKey = (key: string) => (defaultColor === "light" ? key : key === "color" ? "--shiki-light" : `--shiki-light-${key}`);
      for (const decl of style.split(";")) {
        const at = decl.indexOf(":");
        if (at < 0) continue;
        const key = decl.slice(0, at);
        const value = decl.slice(at + 1);
        if (key === "color") {
          const pair = pairs.get(value.toUpperCase());
          if (pair === undefined) throw new Error(`合成主题里没有这个编号色：${value}`);
          lightStyles.push(`${lightKey("color")}:${pair[0]}`);
          darkStyles.push(`--shiki-dark:${pair[1]}`);
        } else {
          lightStyles.push(`${lightKey(key)}:${value}`);
          darkStyles.push(`--shiki-dark-${key}:${value}`);
        }
      }
      node.properties.style = [...lightStyles, ...darkStyles].join(";");
    },
  };
}
