// 主题里 import "./style.css" 的类型：样式文件由 VitePress（vite）处理
declare module "*.css";
