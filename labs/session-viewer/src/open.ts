/** --open：用系统自带的方式打开生成的页面（不经过 shell，路径原样作为一个参数）。 */
import { spawn } from "node:child_process";

export function openInBrowser(file: string): void {
  const [command, args] =
    process.platform === "win32"
      ? ["explorer.exe", [file]]
      : process.platform === "darwin"
        ? ["open", [file]]
        : ["xdg-open", [file]];
  const child = spawn(command, args, { stdio: "ignore", detached: true });
  child.on("error", (error) => console.error(`打不开浏览器（${command}）：${error.message}。请手动打开上面的文件。`));
  child.unref();
}
