// 加载器钩子（运行在 Node 的加载器线程里）。见 register.mjs 的说明。
import { createHash } from "node:crypto";
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

// 转换结果的缓存：键是源码内容的哈希（连同 esbuild 版本），所以源码一改缓存自然失效
const cacheDir = path.join(os.tmpdir(), "mini-agent-harness-ts-cache");
let esbuild;

/** esbuild 是 tsx 的依赖，随 tsx 一起装好；只在缓存没命中时才加载它 */
function transformer() {
  if (esbuild === undefined) {
    const fromTsx = createRequire(createRequire(import.meta.url).resolve("tsx"));
    esbuild = fromTsx("esbuild");
  }
  return esbuild;
}

function transpile(source, file) {
  const key = createHash("sha256").update(source).digest("hex");
  const cached = path.join(cacheDir, `${key}.mjs`);
  try {
    return fs.readFileSync(cached, "utf8");
  } catch {
    // 没命中：转换一次，先写临时文件再改名，几个进程同时写也不会读到半截
  }
  const { code } = transformer().transformSync(source, { loader: "ts", format: "esm", target: "node20", sourcefile: file });
  fs.mkdirSync(cacheDir, { recursive: true });
  const temp = `${cached}.${process.pid}.${Math.random().toString(36).slice(2)}`;
  fs.writeFileSync(temp, code);
  try {
    fs.renameSync(temp, cached);
  } catch {
    // Windows 上别的进程正读着同一个缓存文件时改名会失败：那份内容和我们的一样，丢掉自己这份即可
    fs.rmSync(temp, { force: true });
  }
  return code;
}

export async function resolve(specifier, context, nextResolve) {
  // TypeScript 的写法：源码里 import "./x.js"，磁盘上是 x.ts。先看 x.ts 在不在：
  // 若先让 Node 去找 x.js，找不到时它要构造带提示的错误（还会按 CommonJS 再找一遍），每个 import 都白花这份 CPU
  if (/^\.{1,2}\//.test(specifier) && specifier.endsWith(".js") && context.parentURL?.startsWith("file:")) {
    const ts = new URL(`${specifier.slice(0, -3)}.ts`, context.parentURL);
    if (fs.existsSync(ts)) return nextResolve(ts.href, context);
  }
  return nextResolve(specifier, context);
}

export async function load(url, context, nextLoad) {
  if (url.startsWith("file:") && /\.m?ts$/.test(url)) {
    const file = fileURLToPath(url);
    const source = fs.readFileSync(file, "utf8");
    return { format: "module", source: transpile(source, file), shortCircuit: true };
  }
  return nextLoad(url, context);
}
