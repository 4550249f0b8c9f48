// 默认主题，但不带它的网络字体（Inter）：书站只用系统字体，中文用系统里的中文字体。
// 构建时没能画的图由 live-figures.ts 在读者的浏览器里画。
import type { Theme } from "vitepress";
import DefaultTheme from "vitepress/theme-without-fonts";
import { onMounted } from "vue";
import { watchLiveFigures } from "./live-figures";
import "./style.css";

export default {
  extends: DefaultTheme,
  setup() {
    onMounted(watchLiveFigures);
  },
} satisfies Theme;
