// 默认主题，但不带它的网络字体（Inter）：书站只用系统字体，中文用系统里的中文字体。
import DefaultTheme from "vitepress/theme-without-fonts";
import "./style.css";

export default DefaultTheme;
