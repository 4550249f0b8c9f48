// 测试辅助共用的两样东西：tsx 自带的 esbuild，以及按内容缓存在系统临时目录里的生成文件
// （加载器 hooks.mjs 的转换结果，以及 test/helpers/cli.ts 给 CLI 子进程打的包）。
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";

let loaded;

/** esbuild 是 tsx 的依赖，随 tsx 一起装好；用到时才加载。 */
export function esbuild() {
  loaded ??= createRequire(createRequire(import.meta.url).resolve("tsx"))("esbuild");
  return loaded;
}

/**
 * 临时目录 mini-agent-harness-<kind>/ 里名为 name 的文件：已经有了就直接返回它的路径；
 * 没有就把 produce() 的结果写进去。name 由内容的哈希而来，所以内容一变就是另一个文件。
 * 先写临时文件再改名：几个进程同时写同一个名字，也不会有人读到半截。
 */
export function cachedFile(kind, name, produce) {
  const file = path.join(os.tmpdir(), `mini-agent-harness-${kind}`, name);
  if (fs.existsSync(file)) return file;
  const content = produce();
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}`;
  fs.writeFileSync(temp, content);
  try {
    fs.renameSync(temp, file);
  } catch {
    // Windows 上别的进程正读着同一个文件时改名会失败：那份内容和我们的一样，丢掉自己这份即可
    fs.rmSync(temp, { force: true });
  }
  return file;
}
